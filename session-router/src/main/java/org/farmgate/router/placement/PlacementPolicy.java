package org.farmgate.router.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;

/**
 * Where a new session should go, as a pure function of the nodes' loads: every node that can take it, best first.
 * Best is the most memory left after charging the session at that node's own cost model; ties go to the node with
 * fewer sessions, then to the smaller id so that the order is total and every node computes the same one.
 * Draining and unhealthy nodes, and nodes at their session cap, are not candidates.
 */
public final class PlacementPolicy {

    /** A node that can take the session, and what taking it would leave. */
    public record Candidate(String nodeId, int chargeMb, long freeAfterMb, int sessions) {
    }

    private static final Comparator<Candidate> BEST_FIRST = Comparator
            .comparingLong(Candidate::freeAfterMb).reversed()
            .thenComparingInt(Candidate::sessions)
            .thenComparing(Candidate::nodeId);

    private PlacementPolicy() {
    }

    public static List<Candidate> rank(Collection<NodeLoad> nodes, Protocol protocol, DisplaySize display) {
        List<Candidate> candidates = new ArrayList<>(nodes.size());
        for (NodeLoad node : nodes) {
            if (node.fits(protocol, display)) {
                int charge = node.chargeMb(protocol, display);
                candidates.add(new Candidate(node.nodeId(), charge, node.freeMb() - charge,
                        node.reservations().sessionCount()));
            }
        }
        candidates.sort(BEST_FIRST);
        return candidates;
    }
}
