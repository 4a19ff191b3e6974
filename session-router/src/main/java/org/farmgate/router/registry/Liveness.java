package org.farmgate.router.registry;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.farmgate.model.NodeLoad;

/**
 * Which nodes still beat, as one observer sees them. A node's beat is its member id and the time stamp of its last
 * refresh, taken as an opaque version: what counts is when <em>this</em> observer, on its own clock, last saw it
 * change, so no decision compares two hosts' clocks. A node seen for the first time is alive; one whose beat has not
 * changed for {@code staleAfter} is stale (a paused JVM, a full GC, a stuck host, or a member that left).
 */
public final class Liveness {

    private record Beat(String memberId, Instant refreshedAt) {
    }

    private record Seen(Beat beat, long changedAtMillis) {
    }

    private final long staleAfterMillis;
    private final Map<String, Seen> seen = new ConcurrentHashMap<>();

    public Liveness(Duration staleAfter) {
        this.staleAfterMillis = staleAfter.toMillis();
    }

    /** Records what a read of the registry at {@code nowMillis} showed; nodes no longer in it are forgotten. */
    public void observe(Collection<NodeLoad> nodes, long nowMillis) {
        Set<String> ids = nodes.stream().map(NodeLoad::nodeId).collect(Collectors.toSet());
        seen.keySet().retainAll(ids);
        observeSome(nodes, nowMillis);
    }

    /**
     * Records what a read of some nodes showed (a heartbeat's sample): the others are not forgotten, so that a
     * node drawn again with the beat it had is judged by when its beat last changed, not met anew.
     */
    public void observeSome(Collection<NodeLoad> nodes, long nowMillis) {
        for (NodeLoad node : nodes) {
            Beat beat = new Beat(node.address().memberId(), node.updatedAt());
            seen.compute(node.nodeId(), (id, before) -> before != null && before.beat().equals(beat) ? before
                    : new Seen(beat, nowMillis));
        }
    }

    /** Whether the node's beat changed within {@code staleAfter} of {@code nowMillis}; unknown nodes are not. */
    public boolean isFresh(String nodeId, long nowMillis) {
        Seen last = seen.get(nodeId);
        return last != null && nowMillis - last.changedAtMillis() < staleAfterMillis;
    }
}
