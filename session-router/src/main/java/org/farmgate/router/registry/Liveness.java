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
 *
 * <p>An observer that reads only some nodes each beat (a heartbeat's sample) may see a node again long after it last
 * did, with a beat it has not seen: "it changed now" would believe a node that died meanwhile for {@code staleAfter}
 * more. What it does know is when it first saw the earlier beat, which is no earlier than that beat was written, and
 * how far apart the writer's own clock put the two beats: the new beat was written at the latest that much after the
 * observer first saw the old one. That bound is taken as the change, never later than now; it compares one host's
 * clock with itself only. Reading every node every beat, it is the previous beat's sighting plus a beat, which is
 * about now. A writer whose clock stepped back (the new beat not after the old) is taken as changed now.
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
                    : new Seen(beat, changedAt(before, beat, nowMillis)));
        }
    }

    /** When {@code beat} was written, on this observer's clock, at the latest (the class's comment says why). */
    private static long changedAt(Seen before, Beat beat, long nowMillis) {
        if (before == null || !before.beat().memberId().equals(beat.memberId())) {
            return nowMillis;
        }
        long writerMillis = Duration.between(before.beat().refreshedAt(), beat.refreshedAt()).toMillis();
        if (writerMillis <= 0) {
            return nowMillis;
        }
        return Math.min(nowMillis, before.changedAtMillis() + writerMillis);
    }

    /** Whether the node's beat changed within {@code staleAfter} of {@code nowMillis}; unknown nodes are not. */
    public boolean isFresh(String nodeId, long nowMillis) {
        Seen last = seen.get(nodeId);
        return last != null && nowMillis - last.changedAtMillis() < staleAfterMillis;
    }
}
