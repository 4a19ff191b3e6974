package org.farmgate.router;

import java.time.Clock;
import java.time.Duration;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import org.farmgate.error.Failures;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.NodeState;
import org.farmgate.model.Protocol;
import org.farmgate.router.placement.PlacementPolicy;
import org.farmgate.router.registry.Liveness;
import org.farmgate.router.registry.NodeRegistry.ReserveResult;
import org.farmgate.router.registry.NodeRegistry;
import org.farmgate.router.store.SharedStateUnavailableException;

/**
 * Places new sessions on the cluster's nodes and charges them there.
 *
 * <h2>Design</h2>
 * Any node may place any session. Placement reads a snapshot of every node's summary from the {@link NodeRegistry}
 * and ranks the nodes with the pure {@link PlacementPolicy}, all of them, or the best of a few drawn at random
 * (power of d choices: routers with the same stale snapshot then do not all pick the same node), the node the router
 * runs on preferred while it is nearly the best, so that a session is opened (and usually ended) where its create
 * arrived, without a hop to another node ({@link PlacementPolicy}). The snapshot is
 * only advice: the decision is made by the reservation, an atomic update on the chosen node's registry entry,
 * executed by the cluster member that owns that entry. The update re-checks, against the entry as it is at that instant, that the session still fits (the
 * node's own cost model, its budget minus everything reserved, the host's available memory minus the margin and
 * minus reservations not yet visible in it, its session caps, its state) and only then adds the reservation.
 *
 * <p>Each router keeps the snapshot it read for a short while ({@code viewMaxAge}) and shares one read among
 * concurrent placements, so that placing does not cost a cluster-wide query per session; the node's heartbeat
 * {@linkplain #offer offers} its read as the snapshot (every summary, or with a draw of two past 17 nodes a sample of
 * them: {@link org.farmgate.router.registry.HeartbeatRead}), so a router reads the registry itself only when the
 * heartbeat is late or placement needs a fresh view. What it learns from its own
 * reservation attempts (the entry's summary comes back with the answer) goes into the snapshot at once.
 *
 * <h2>Races it avoids</h2>
 * <ul>
 * <li><b>Two routers, one node.</b> Routers on different nodes read the same snapshot and pick the same node.
 * Updates on one key are serialised by its owner, so the second sees the first's reservation; if the session no
 * longer fits it is refused, and its router tries the next candidate. No node is ever charged beyond its budget,
 * whatever the number of concurrent creates, and no lock is held across the network.</li>
 * <li><b>Stale snapshot.</b> A node that looked full may have freed memory, one that looked free may have filled
 * up. The second is handled above; for the first, a router that finds no candidate reads a fresh snapshot once
 * before it answers "no capacity".</li>
 * <li><b>Retries.</b> A reservation is keyed by the session id, so repeating one (a retry after a timeout) is a
 * no-op, and so is releasing one twice.</li>
 * <li><b>Node loss.</b> Reservations live in the node's entry, which the cluster coordinator turns into a tombstone
 * when the node's member has left and its beat stopped; nothing has to be counted down, and a reservation attempt
 * on a departed node finds no entry and moves on.</li>
 * <li><b>A node that stopped beating but is still a member</b> (a paused JVM, a full GC, a stuck host) would keep
 * receiving sessions it cannot open. The router tracks every node's beat with {@link Liveness}, on its own clock,
 * and skips a node whose beat has not changed for {@code staleAfter}: no two hosts' clocks are compared.</li>
 * <li><b>An entry that cannot be decided on</b>: its owner is leaving or is a member without the cluster key, or
 * it is an old copy put back (see {@code SealedMap}). The reservation is refused without a decision and the router
 * tries the next candidate, as for a full node.</li>
 * <li><b>Measurement lag.</b> A reservation is "pending" until the node's heartbeat says the session's guacd
 * connection exists, in the same write as the host measurement taken with it, and pending memory is subtracted from
 * the host's measured available memory too, since the measurement cannot show it yet.</li>
 * </ul>
 */
public final class SessionRouter {

    /** Where a session was placed and what it was charged. */
    public record Placement(String nodeId, int chargedMb) {
    }

    /**
     * A read of the registry: its nodes in the order read, each as the router last learnt of it (null once gone), so
     * that a draw of a few picks them by position without copying every node per placement.
     */
    private record View(List<String> ids, Map<String, NodeLoad> byId) {

        List<NodeLoad> nodes() {
            return new AbstractList<>() {
                @Override
                public NodeLoad get(int index) {
                    return byId.get(ids.get(index));
                }

                @Override
                public int size() {
                    return ids.size();
                }
            };
        }
    }

    private final NodeRegistry registry;
    private final Clock clock;
    private final long viewMaxAgeMillis;
    private final Liveness liveness;
    private final int choices;
    private final RandomGenerator random;
    private final String preferred;
    private final Object viewLock = new Object();
    private final LongAdder placements = new LongAdder();
    private CompletableFuture<View> view;
    private long viewReadAt;

    public SessionRouter(NodeRegistry registry, Clock clock, Duration viewMaxAge, Duration staleAfter) {
        this(registry, clock, viewMaxAge, staleAfter, 0, threadLocalRandom());
    }

    /**
     * @param choices how many nodes drawn at random the session goes to the best of ({@link PlacementPolicy#sample});
     *     0 ranks every node
     * @param random what draws them (a seeded one in the simulation)
     */
    public SessionRouter(NodeRegistry registry, Clock clock, Duration viewMaxAge, Duration staleAfter, int choices,
            RandomGenerator random) {
        this(registry, clock, viewMaxAge, staleAfter, choices, random, null);
    }

    /**
     * @param preferred the node this router runs on, which it places a session on while that node is nearly the best
     *     (at most four sessions behind it: {@link PlacementPolicy}), or null to prefer none
     */
    public SessionRouter(NodeRegistry registry, Clock clock, Duration viewMaxAge, Duration staleAfter, int choices,
            RandomGenerator random, String preferred) {
        if (choices < 0) {
            throw new IllegalArgumentException("choices cannot be negative: " + choices);
        }
        this.registry = registry;
        this.clock = clock;
        this.viewMaxAgeMillis = viewMaxAge.toMillis();
        this.liveness = new Liveness(staleAfter);
        this.choices = choices;
        this.random = random;
        this.preferred = preferred;
    }

    /**
     * Places the session on the best node that takes it, skipping {@code excluded} nodes.
     *
     * @return the placement, or a stage failed with {@link NoCapacityException}
     */
    public CompletionStage<Placement> place(String sessionId, Protocol protocol, DisplaySize display,
            Set<String> excluded) {
        placements.increment();
        return snapshot(false).thenCompose(nodes -> tryCandidates(sessionId, protocol, display, excluded, nodes,
                true));
    }

    /** Placements asked of this router so far: what its heartbeat's sample is sized by. */
    public long placements() {
        return placements.sum();
    }

    /** Each calling thread's own generator, as one: a router is called from every event loop. */
    public static RandomGenerator threadLocalRandom() {
        return () -> java.util.concurrent.ThreadLocalRandom.current().nextLong();
    }

    /** The shared snapshot: reused while young, one read for every caller when it is not. */
    private CompletableFuture<View> snapshot(boolean fresh) {
        synchronized (viewLock) {
            long now = clock.millis();
            boolean stale = view == null || view.isCompletedExceptionally()
                    || view.isDone() && now - viewReadAt > viewMaxAgeMillis;
            if (fresh && view != null && view.isDone()) {
                stale = true;
            }
            if (stale) {
                viewReadAt = now;
                view = registry.summaries().toCompletableFuture().thenApply(this::observed);
            }
            return view;
        }
    }

    /**
     * A read of the registry made by someone else on this node (its heartbeat's): it becomes the snapshot, so that a
     * router placing sessions does not read the registry a second time per heartbeat. The read may be a sample of the
     * nodes ({@code whole} false: see {@link org.farmgate.router.registry.HeartbeatRead}); placement then draws from
     * the nodes it has, and reads every summary before it answers "no capacity". Not before the router's first
     * placement, which reads for itself: a node that just started may have beaten before its peers registered, and
     * its first session would not see them. A read of the router's own that is on its way is left to answer.
     */
    public void offer(List<NodeLoad> nodes, boolean whole) {
        synchronized (viewLock) {
            if (view == null || !view.isDone()) {
                return;
            }
            viewReadAt = clock.millis();
            view = CompletableFuture.completedFuture(observed(nodes, whole));
        }
    }

    /** A read of the registry as the snapshot holds it; each node's beat noted for its liveness. */
    private View observed(List<NodeLoad> nodes) {
        return observed(nodes, true);
    }

    private View observed(List<NodeLoad> nodes, boolean whole) {
        if (whole) {
            liveness.observe(nodes, clock.millis());
        } else {
            liveness.observeSome(nodes, clock.millis());
        }
        Map<String, NodeLoad> byId = new ConcurrentHashMap<>();
        nodes.forEach(node -> byId.put(node.nodeId(), node));
        return new View(List.copyOf(byId.keySet()), byId);
    }

    /** What a reservation attempt said of a node is newer than the snapshot. */
    private void learn(String nodeId, NodeLoad summary) {
        CompletableFuture<View> current;
        synchronized (viewLock) {
            current = view;
        }
        if (current != null && current.isDone() && !current.isCompletedExceptionally()) {
            Map<String, NodeLoad> nodes = current.join().byId();
            if (summary == null) {
                nodes.remove(nodeId);
            } else {
                nodes.put(nodeId, summary);
            }
        }
    }

    /** The draw of a few judges only the nodes it meets: what a placement costs does not grow with the cluster. */
    private CompletionStage<Placement> tryCandidates(String sessionId, Protocol protocol, DisplaySize display,
            Set<String> excluded, View view, boolean mayRefresh) {
        long now = clock.millis();
        Predicate<NodeLoad> eligible = node -> !excluded.contains(node.nodeId())
                && liveness.isFresh(node.nodeId(), now);
        List<NodeLoad> nodes = view.nodes();
        Iterator<PlacementPolicy.Candidate> candidates = choices > 0
                ? PlacementPolicy.sample(nodes, eligible, protocol, display, choices, random,
                        preferred == null ? null : view.byId().get(preferred))
                : PlacementPolicy.rank(eligibleOf(nodes, eligible), protocol, display, preferred).iterator();
        return attempt(sessionId, protocol, display, candidates).thenCompose(placement -> {
            if (placement != null) {
                return CompletableFuture.completedFuture(placement);
            }
            if (mayRefresh) {
                return snapshot(true).thenCompose(fresh -> tryCandidates(sessionId, protocol, display,
                        excluded, fresh, false));
            }
            CompletableFuture<Placement> failed = new CompletableFuture<>();
            failed.completeExceptionally(new NoCapacityException(explain(eligibleOf(nodes, eligible), protocol,
                    display)));
            return failed;
        });
    }

    private static List<NodeLoad> eligibleOf(List<NodeLoad> nodes, Predicate<NodeLoad> eligible) {
        List<NodeLoad> out = new ArrayList<>(nodes.size());
        for (NodeLoad node : nodes) {
            if (node != null && eligible.test(node)) {
                out.add(node);
            }
        }
        return out;
    }

    /** Tries the candidates in order; null when none took the session. */
    private CompletionStage<Placement> attempt(String sessionId, Protocol protocol, DisplaySize display,
            Iterator<PlacementPolicy.Candidate> candidates) {
        if (!candidates.hasNext()) {
            return CompletableFuture.completedFuture(null);
        }
        PlacementPolicy.Candidate candidate = candidates.next();
        return registry.reserve(candidate.nodeId(), sessionId, protocol, display, clock.instant())
                .handle((result, error) -> {
                    Throwable cause = Failures.cause(error);
                    if (cause instanceof SharedStateUnavailableException) {
                        return attempt(sessionId, protocol, display, candidates); // this entry, not the cluster
                    }
                    if (error != null) {
                        return CompletableFuture.<Placement>failedFuture(cause);
                    }
                    learn(candidate.nodeId(), result.node());
                    return result.outcome() == ReserveResult.Outcome.RESERVED
                            ? CompletableFuture.completedFuture(new Placement(candidate.nodeId(), result.chargedMb()))
                            : attempt(sessionId, protocol, display, candidates);
                })
                .thenCompose(next -> next);
    }

    /** Why nothing fits, node by node, for the 503's body and the log. */
    static String explain(List<NodeLoad> nodes, Protocol protocol, DisplaySize display) {
        if (nodes.isEmpty()) {
            return "no node is available";
        }
        StringBuilder out = new StringBuilder();
        for (NodeLoad node : nodes) {
            if (out.length() > 0) {
                out.append("; ");
            }
            out.append(node.nodeId()).append(": ");
            if (node.state() != NodeState.UP) {
                out.append(node.state().wireName());
            } else if (node.reservations().sessionCount() >= node.sessionCap()) {
                out.append("at its cap of ").append(node.sessionCap()).append(" sessions");
            } else {
                out.append(node.freeMb()).append(" MB free, a ").append(protocol.wireName()).append(" session needs ")
                        .append(node.chargeMb(protocol, display)).append(" MB");
            }
        }
        return out.toString();
    }
}
