package org.farmgate.router.registry;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.farmgate.model.NodeLoad;

/**
 * What a node's heartbeat reads of the registry: the snapshot its router places from, and, now and then, the whole
 * registry for what follows every node (the nodes sharing its host, its peers, strangers' proofs, the census).
 *
 * <p>Reading every summary on every beat cost each node a request to every member per beat: O(N) per node and
 * O(N²) for the cluster, the largest part of the control plane that still grew with N (1332 of a node's 2601
 * messages a second at 1000 nodes, simulated). A router that draws two candidates at random does not need every
 * summary to place well: the best of two drawn from a few random nodes balances as the best of two drawn from all
 * (Mitzenmacher), and the reservation decides either way. So when placement draws, a beat reads a <em>sample</em>:
 * the summaries of nodes drawn from those the last whole read named, asked only of the members that hold them
 * (a partition-scoped query), however large the cluster, with this node's own entry as its beat just wrote it.
 * The sample has {@link #SAMPLE} nodes, or two for each placement the node's router made since the beat before, if
 * that is more: a router that places many sessions per beat on a few nodes piles them there before the next beat
 * shows it (simulated, 60 nodes each placing 22 sessions a beat: the 99th percentile of a node's distance from the
 * mean fill was 17.5 points with 16 nodes, 9.2 with 32, 7.9 with 48 and 7.4 with every node). So what a node reads
 * grows with what it places, not with the cluster. The whole registry is read every {@link #WHOLE_EVERY}-th beat,
 * so that a node that joined since is met (the first period of a random length up to that, so that nodes started
 * together do not read everything on the same beat ever after), and on every beat:
 * <ul>
 * <li>when placement ranks every node ({@code GW_PLACEMENT_CHOICES=0}): ranking means seeing them all;</li>
 * <li>on the coordinator, whose sweep judges every node's beat (one member doing O(N) is bounded);</li>
 * <li>while a member has not proven itself a node (one that just joined, or a stranger): a node proves itself by its
 * entry, which every node must see within the stranger's grace (on the node, {@code Strangers});</li>
 * <li>when the cluster has no more other nodes than the sample would have: it would be the whole, in more
 * requests.</li>
 * </ul>
 *
 * <p>What a sample gives up: a router meets a node that joined since the last whole read only in the fresh read it
 * makes before answering "no capacity"; and its {@link Liveness} sees a node's beat only when it draws it, dating a
 * beat it has not seen by the writer's own clock, counted from when it first saw the beat before: a node that stopped
 * is known stale when drawn if its last beat is older than {@code staleAfter}, give or take how late this router
 * first saw it. Within {@code staleAfter} of its stop a stuck node may be chosen, as with every summary: its
 * reservation succeeds (its entry's owner is another member), its open fails, and the create goes elsewhere.
 */
public final class HeartbeatRead {

    /** Nodes a sampled beat reads besides its own. */
    public static final int SAMPLE = 16;
    /** Every how many beats the whole registry is read anyway. */
    public static final int WHOLE_EVERY = 30;

    /** A read: every node's summary ({@code whole}), or a sample of them and this node's own. */
    public record View(List<NodeLoad> nodes, boolean whole) {
    }

    private final NodeRegistry registry;
    private final String self;
    private final RandomGenerator random;
    private final LongSupplier placements;
    /** The other nodes the last whole read named: what samples are drawn from. */
    private volatile List<String> others = List.of();
    private volatile int sinceWhole;
    private volatile boolean phased;
    private volatile long placementsBefore;

    /**
     * @param self this node's id
     * @param placements how many placements this node's router has made so far (only its growth counts)
     */
    public HeartbeatRead(NodeRegistry registry, String self, RandomGenerator random, LongSupplier placements) {
        this.registry = registry;
        this.self = self;
        this.random = random;
        this.placements = placements;
        this.placementsBefore = placements.getAsLong();
    }

    /**
     * The next beat's read.
     *
     * @param wholeNeeded whether this beat must see every node (the coordinator, a ranked placement)
     * @param own this node's entry as its beat wrote it; null when the beat was refused
     */
    public CompletionStage<View> next(boolean wholeNeeded, NodeLoad own) {
        List<String> known = others;
        long placed = placements.getAsLong();
        int size = (int) Math.max(SAMPLE, Math.min(2 * (placed - placementsBefore), Integer.MAX_VALUE));
        placementsBefore = placed;
        if (wholeNeeded || known.size() <= size || ++sinceWhole >= WHOLE_EVERY) {
            return registry.summaries().thenApply(all -> {
                sinceWhole = phased ? 0 : random.nextInt(WHOLE_EVERY);
                phased = true;
                others = all.stream().map(NodeLoad::nodeId).filter(id -> !id.equals(self)).toList();
                return new View(all, true);
            });
        }
        return registry.summariesOf(draw(known, size)).thenApply(drawn -> {
            List<NodeLoad> sample = new ArrayList<>(drawn.size() + 1);
            sample.addAll(drawn);
            if (own != null) {
                sample.add(own.summary());
            }
            return new View(List.copyOf(sample), false);
        });
    }

    /** {@code size} distinct ids drawn at random; {@code known} has more than that. */
    private Set<String> draw(List<String> known, int size) {
        Set<String> drawn = new HashSet<>();
        while (drawn.size() < size) {
            drawn.add(known.get(random.nextInt(known.size())));
        }
        return drawn;
    }
}
