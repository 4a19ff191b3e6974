package org.farmgate.router.registry;

import java.io.Serializable;
import java.time.Instant;
import java.util.List;
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
 * writes. A node's entry is removed when its member leaves the cluster, not when it stops refreshing it.
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
     * {@link org.farmgate.model.ReservationBook#reconciledWith}), reservations younger than {@code inFlightSince}
     * being still on their way.
     */
    public CompletionStage<Void> publish(NodeLoad fresh, Instant inFlightSince) {
        return nodes.update(fresh.nodeId(), new Publish(fresh, inFlightSince));
    }

    /** Summaries of every node: what placement and the capacity view read. */
    public CompletionStage<List<NodeLoad>> summaries() {
        return nodes.query(new Summaries());
    }

    public CompletionStage<NodeLoad> get(String nodeId) {
        return nodes.get(nodeId);
    }

    /** Charges the session to the node if it still fits there, decided on the entry's owner at this instant. */
    public CompletionStage<ReserveResult> reserve(String nodeId, String sessionId, Protocol protocol,
            DisplaySize display, Instant now) {
        return nodes.update(nodeId, new Reserve(sessionId, protocol, display, now));
    }

    /** The session's guacd connection exists: its cost is now in the host's measurement. */
    public CompletionStage<Boolean> activate(String nodeId, String sessionId) {
        return nodes.update(nodeId, new Activate(sessionId));
    }

    /** Idempotent: releasing twice, or after the node left, changes nothing. */
    public CompletionStage<Boolean> release(String nodeId, String sessionId) {
        return nodes.update(nodeId, new Release(sessionId));
    }

    /** @return false when there is no such node */
    public CompletionStage<Boolean> setDrain(String nodeId, boolean drain) {
        return nodes.update(nodeId, new Drain(drain));
    }

    /** Removes the entry of a node whose member left, with every reservation on it. */
    public CompletionStage<NodeLoad> remove(String nodeId) {
        return nodes.remove(nodeId);
    }

    private record Publish(NodeLoad fresh, Instant inFlightSince) implements Update<NodeLoad, Void> {

        @Override
        public Outcome<NodeLoad, Void> apply(NodeLoad current) {
            return Outcome.store(current == null ? fresh : current.refreshedBy(fresh, inFlightSince), null);
        }
    }

    private record Reserve(String sessionId, Protocol protocol, DisplaySize display, Instant now)
            implements Update<NodeLoad, ReserveResult> {

        @Override
        public Outcome<NodeLoad, ReserveResult> apply(NodeLoad current) {
            if (current == null) {
                return Outcome.keep(new ReserveResult(ReserveResult.Outcome.NO_SUCH_NODE, 0, null));
            }
            int charge = current.chargeMb(protocol, display);
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

    private record Activate(String sessionId) implements Update<NodeLoad, Boolean> {

        @Override
        public Outcome<NodeLoad, Boolean> apply(NodeLoad current) {
            if (current == null || !current.reservations().entries().containsKey(sessionId)) {
                return Outcome.keep(false);
            }
            return Outcome.store(current.withReservations(current.reservations().activated(sessionId)), true);
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
    }

    private record Drain(boolean drain) implements Update<NodeLoad, Boolean> {

        @Override
        public Outcome<NodeLoad, Boolean> apply(NodeLoad current) {
            if (current == null) {
                return Outcome.keep(false);
            }
            return Outcome.store(current.withDrainRequested(drain), true);
        }
    }

    private record Summaries() implements Query<NodeLoad, NodeLoad> {

        @Override
        public boolean matches(NodeLoad value) {
            return true;
        }

        @Override
        public NodeLoad project(NodeLoad value) {
            return value.summary();
        }
    }
}
