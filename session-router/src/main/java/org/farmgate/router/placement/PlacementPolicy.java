package org.farmgate.router.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.random.RandomGenerator;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;

/**
 * Where a new session should go, as a pure function of the nodes' loads: every node that can take it, best first.
 * Best is the most memory left after charging the session at that node's own cost model; ties go to the node with
 * fewer sessions, then to the smaller id so that the order is total and every node computes the same one.
 * Draining and unhealthy nodes, and nodes at their session cap, are not candidates.
 *
 * <p>{@link #sample} is the power of d choices (Mitzenmacher, "How useful is old information?", 2000): with loads
 * read up to a heartbeat ago, every router sending to the one best node herds them onto it until their views
 * refresh; the best of d nodes drawn at random spreads them and stays close to the best.
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

    /**
     * The best of {@code choices} candidates drawn at random first, best first among them; the other candidates
     * after, best first, for when the drawn ones refuse (the reservation re-checks on the entry itself).
     */
    public static List<Candidate> sample(Collection<NodeLoad> nodes, Protocol protocol, DisplaySize display,
            int choices, RandomGenerator random) {
        List<Candidate> ranked = rank(nodes, protocol, display);
        int drawn = Math.min(choices, ranked.size());
        // a partial Fisher-Yates shuffle of the ranks: the first `drawn` are the draw; each part sorted is best first
        int[] positions = new int[ranked.size()];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = i;
        }
        for (int i = 0; i < drawn; i++) {
            int j = i + random.nextInt(positions.length - i);
            int swap = positions[i];
            positions[i] = positions[j];
            positions[j] = swap;
        }
        java.util.Arrays.sort(positions, 0, drawn);
        java.util.Arrays.sort(positions, drawn, positions.length);
        List<Candidate> ordered = new ArrayList<>(ranked.size());
        for (int position : positions) {
            ordered.add(ranked.get(position));
        }
        return ordered;
    }
}
