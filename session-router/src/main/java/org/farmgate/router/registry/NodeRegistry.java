package org.farmgate.router.registry;

import java.io.Serializable;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;

/**
 * Every live node's {@link NodeLoad}, by node id. Each change is an {@link Update} that runs on the entry's owner,
 * so a node refreshing its measurements, an admin draining it and routers reserving on it never lose each other's
 * writes.
 *
 * <p>A node's entry goes when the coordinator sees its member gone and its beat stale ({@link #depart}); what stays
 * is a tombstone naming that member, invisible to every reader, so that a heartbeat of the departed member that lands
 * late (it was in flight, or its JVM was paused) cannot bring the entry back. The node registers again when it
 * rejoins, which Hazelcast does under a new member id.
 */
public final class NodeRegistry {

    /** How a reservation attempt ended; {@code node} is the entry's summary after the attempt. */
    public record ReserveResult(Outcome outcome, int chargedMb, NodeLoad node) implements Serializable {

        public enum Outcome {
            RESERVED,
            NO_ROOM,
            NO_SUCH_NODE
        }
    }

    private final SharedMap<String, NodeLoad> nodes;

    public NodeRegistry(SharedMap<String, NodeLoad> nodes) {
        this.nodes = nodes;
    }

    /**
     * The node's fresh self-description, with the sessions it holds as its reservation book. The drain flag made
     * by others is kept; reservations are reconciled with the node's book (see
     * {@link org.farmgate.model.ReservationBook#reconciledWith}): the ones it does not hold stay on their way
     * unless it names them {@code expired}.
     *
     * @return the entry as written, what the node reconciles its next beat against; null when refused (the member a
     *     tombstone names)
     */
    public CompletionStage<NodeLoad> publish(NodeLoad fresh, Set<String> expired) {
        return nodes.update(fresh.nodeId(), new Publish(fresh, Set.copyOf(expired), true)).thenCompose(answer -> {
            if (answer instanceof NodeLoad written) {
                return CompletableFuture.completedFuture(written);
            }
            // An owner of the version before answers only whether it took the beat: the entry is read then.
            return Boolean.TRUE.equals(answer) ? get(fresh.nodeId()) : CompletableFuture.completedFuture(null);
        });
    }

    /** Summaries of every node: what placement and the capacity view read. */
    public CompletionStage<List<NodeLoad>> summaries() {
        return nodes.query(new Summaries());
    }

    /**
     * The summaries of these nodes that are registered, asked only of the members that hold their entries: what a
     * heartbeat's sample reads.
     */
    public CompletionStage<List<NodeLoad>> summariesOf(Set<String> nodeIds) {
        return nodes.query(new SummariesOf(Set.copyOf(nodeIds)), nodeIds);
    }

    /** Every session some node holds or has a reservation for. */
    public CompletionStage<Set<String>> reservedSessions() {
        return nodes.query(new ReservedIds()).thenApply(perNode -> {
            Set<String> all = new HashSet<>();
            perNode.forEach(all::addAll);
            return all;
        });
    }

    /** The node's entry, or null when it has none (or only a tombstone). */
    public CompletionStage<NodeLoad> get(String nodeId) {
        return nodes.get(nodeId).thenApply(NodeRegistry::live);
    }

    private static NodeLoad live(NodeLoad entry) {
        return entry == null || entry.departed() ? null : entry;
    }

    /** Charges the session to the node if it still fits there, decided on the entry's owner at this instant. */
    public CompletionStage<ReserveResult> reserve(String nodeId, String sessionId, Protocol protocol,
            DisplaySize display, Instant now) {
        return nodes.update(nodeId, new Reserve(sessionId, protocol, display, now));
    }

    /** Idempotent: releasing twice, or after the node left, changes nothing. */
    public CompletionStage<Boolean> release(String nodeId, String sessionId) {
        return nodes.update(nodeId, new Release(sessionId));
    }

    /** @return false when there is no such node */
    public CompletionStage<Boolean> setDrain(String nodeId, boolean drain) {
        return nodes.update(nodeId, new Drain(drain));
    }

    /**
     * Declares the node's member gone, with every reservation on it, if its entry is still the one the caller judged
     * ({@code seen}: same member, same refresh), so that a node that beat in the meantime stays.
     *
     * @return the entry that went, or null when it had changed or was gone already
     */
    public CompletionStage<NodeLoad> depart(NodeLoad seen) {
        return nodes.update(seen.nodeId(), new Depart(seen.address().memberId(), seen.updatedAt()));
    }

    /** Removes the entry (or tombstone) outright: a node clearing what its own previous run left. */
    public CompletionStage<NodeLoad> remove(String nodeId) {
        return nodes.remove(nodeId).thenApply(NodeRegistry::live);
    }

    /**
     * Refreshes or registers, answering the entry as written (the node's next beat reconciles against it), or
     * whether the beat was taken where the sender is of the version before and does not ask for the entry
     * ({@code answersEntry} false: a field its record lacks); refused (null, or false) for the member a tombstone
     * names.
     */
    private record Publish(NodeLoad fresh, Set<String> expired, boolean answersEntry)
            implements Update<NodeLoad, Object> {

        @Override
        public Outcome<NodeLoad, Object> apply(NodeLoad current) {
            if (current == null) {
                return written(fresh);
            }
            if (current.departed()) {
                return current.address().memberId().equals(fresh.address().memberId())
                        ? Outcome.keep(answersEntry ? null : false) : written(fresh);
            }
            return written(current.refreshedBy(fresh, expired));
        }

        private Outcome<NodeLoad, Object> written(NodeLoad entry) {
            return Outcome.store(entry, answersEntry ? entry : true);
        }

        /**
         * A heartbeat that left the node able to take as much as before (nothing changed, or memory was freed) needs
         * no fence: a copy older than it grants no more than the entry now. Most beats of a steady node are such.
         */
        @Override
        public boolean narrows(NodeLoad before, NodeLoad after) {
            return after.mayGrantLessThan(before);
        }

        /**
         * The node is the truth of its own entry: an old copy put back (not drained, other reservations, another
         * address) is replaced by what the node holds, with the drain flag it last saw. Reservations other routers
         * made on it since its last beat are lost with the copy, as with a crashed partition owner.
         */
        @Override
        public Outcome<NodeLoad, Object> applyToStale(NodeLoad stale) {
            return written(fresh);
        }
    }

    private record Depart(String memberId, Instant refreshedAt) implements Update<NodeLoad, NodeLoad> {

        @Override
        public Outcome<NodeLoad, NodeLoad> apply(NodeLoad current) {
            if (current == null || current.departed() || !current.address().memberId().equals(memberId)
                    || !current.updatedAt().equals(refreshedAt)) {
                return Outcome.keep(null);
            }
            return Outcome.store(current.departedMember(), current);
        }
    }

    private record Reserve(String sessionId, Protocol protocol, DisplaySize display, Instant now)
            implements Update<NodeLoad, ReserveResult> {

        @Override
        public Outcome<NodeLoad, ReserveResult> apply(NodeLoad current) {
            if (current == null || current.departed()) {
                return Outcome.keep(new ReserveResult(ReserveResult.Outcome.NO_SUCH_NODE, 0, null));
            }
            // The session's own cost; what its protocol takes once is charged while any of its sessions is here.
            int charge = current.costModel().estimateMb(protocol, display);
            if (current.reservations().entries().containsKey(sessionId)) {
                return Outcome.keep(new ReserveResult(ReserveResult.Outcome.RESERVED, charge, current.summary()));
            }
            if (!current.fits(protocol, display)) {
                return Outcome.keep(new ReserveResult(ReserveResult.Outcome.NO_ROOM, charge, current.summary()));
            }
            NodeLoad next = current.withReservations(current.reservations()
                    .with(new Reservation(sessionId, protocol, charge, false, now)));
            return Outcome.store(next, new ReserveResult(ReserveResult.Outcome.RESERVED, charge, next.summary()));
        }
    }

    private record Release(String sessionId) implements Update<NodeLoad, Boolean> {

        @Override
        public Outcome<NodeLoad, Boolean> apply(NodeLoad current) {
            if (current == null || !current.reservations().entries().containsKey(sessionId)) {
                return Outcome.keep(false);
            }
            return Outcome.store(current.withReservations(current.reservations().without(sessionId)), true);
        }

        /** A reservation gone: an old copy charges more, which grants less. */
        @Override
        public boolean narrows(NodeLoad before, NodeLoad after) {
            return false;
        }
    }

    private record Drain(boolean drain) implements Update<NodeLoad, Boolean> {

        @Override
        public Outcome<NodeLoad, Boolean> apply(NodeLoad current) {
            if (current == null || current.departed()) {
                return Outcome.keep(false);
            }
            return Outcome.store(current.withDrainRequested(drain), true);
        }

        /** An undrain grants more than the copy before it; a drain less. */
        @Override
        public boolean narrows(NodeLoad before, NodeLoad after) {
            return drain;
        }
    }

    private record ReservedIds() implements Query<NodeLoad, HashSet<String>> {

        @Override
        public boolean matches(NodeLoad value) {
            return !value.departed();
        }

        @Override
        public HashSet<String> project(NodeLoad value) {
            return new HashSet<>(value.reservations().entries().keySet());
        }
    }

    /** {@link Summaries} of the nodes named: others in the same partitions are left there. */
    private record SummariesOf(Set<String> nodeIds) implements Query<NodeLoad, NodeLoad> {

        @Override
        public boolean matches(NodeLoad value) {
            return !value.departed() && nodeIds.contains(value.nodeId());
        }

        @Override
        public NodeLoad project(NodeLoad value) {
            return value.summary();
        }
    }

    private record Summaries() implements Query<NodeLoad, NodeLoad> {

        @Override
        public boolean matches(NodeLoad value) {
            return !value.departed();
        }

        @Override
        public NodeLoad project(NodeLoad value) {
            return value.summary();
        }
    }
}
