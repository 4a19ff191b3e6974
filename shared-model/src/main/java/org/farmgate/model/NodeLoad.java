package org.farmgate.model;

import java.io.Serializable;
import java.time.Instant;

/**
 * A node's entry in the cluster's registry: where it is, what it may take, what it measured, and what the router
 * has charged it. The node itself refreshes the measurements; any node may add a reservation, atomically, on the
 * entry's owner; the reservations and the drain flag survive every refresh.
 *
 * <p>A {@code departed} entry is the tombstone the coordinator leaves for a member it declared gone: it holds
 * nothing, and refuses a late heartbeat of that member (see {@code NodeRegistry}).
 */
public record NodeLoad(String nodeId, NodeAddress address, NodeLimits limits, CostModel costModel,
        HostMeasurements measurements, ReservationBook reservations, boolean drainRequested, Instant updatedAt,
        boolean departed) implements Serializable {

    public NodeLoad(String nodeId, NodeAddress address, NodeLimits limits, CostModel costModel,
            HostMeasurements measurements, ReservationBook reservations, boolean drainRequested, Instant updatedAt) {
        this(nodeId, address, limits, costModel, measurements, reservations, drainRequested, updatedAt, false);
    }

    public NodeState state() {
        if (drainRequested) {
            return NodeState.DRAINING;
        }
        return measurements.guacdHealthy() ? NodeState.UP : NodeState.UNHEALTHY;
    }

    /**
     * Memory still free for sessions: the lesser of what the host really has (minus the margin and minus
     * reservations it cannot see yet) and what the budget leaves after every reservation and after what guacd takes
     * once for each protocol in use (which the host's own measurement sees already).
     */
    public long freeMb() {
        long byHost = measurements.hostAvailableMb() - limits.marginMb() - reservations.pendingMb();
        long byBudget = limits.budgetMb() - reservations.reservedMb() - protocolsInUseMb();
        return Math.min(byHost, byBudget);
    }

    /** What the cost model charges once for every protocol this node has a session of. */
    public int protocolsInUseMb() {
        return costModel.protocolsMb(protocol -> reservations.sessions(protocol) > 0);
    }

    /** The most sessions this node may hold: its own cap, and the per-core cap when one is set. */
    public int sessionCap() {
        int perCore = limits.maxSessionsPerCore() > 0
                ? limits.maxSessionsPerCore() * Math.max(1, measurements.cpuCount()) : Integer.MAX_VALUE;
        return Math.min(limits.maxSessions(), perCore);
    }

    /** What one more such session takes from {@link #freeMb}: its own cost, and its protocol's if it is the first. */
    public int chargeMb(Protocol protocol, DisplaySize display) {
        return costModel.estimateMb(protocol, display) + firstOfProtocolMb(protocol);
    }

    private int firstOfProtocolMb(Protocol protocol) {
        return reservations.sessions(protocol) > 0 ? 0 : costModel.protocolsMb(protocol::equals);
    }

    /** Whether one more such session fits now. */
    public boolean fits(Protocol protocol, DisplaySize display) {
        return state() == NodeState.UP && reservations.sessionCount() < sessionCap()
                && freeMb() >= chargeMb(protocol, display);
    }

    /** How many more sessions of this kind fit, taking only them. */
    public int fitsMore(Protocol protocol, DisplaySize display) {
        if (state() != NodeState.UP) {
            return 0;
        }
        long byMemory = Math.max(0, freeMb() - firstOfProtocolMb(protocol))
                / Math.max(1, costModel.estimateMb(protocol, display));
        long bySessions = Math.max(0, sessionCap() - reservations.sessionCount());
        return (int) Math.min(byMemory, bySessions);
    }

    /**
     * Whether this entry may take less than {@code before} in any way placement looks at: its state, its free memory,
     * its session cap and count, its charges, or its member (a rejoin). A copy older than a write that took nothing
     * away grants no more than the entry now, so only such writes need every node to hear of them.
     */
    public boolean mayGrantLessThan(NodeLoad before) {
        if (before == null || before.departed()) {
            return false; // nothing was granted
        }
        return departed || state() != NodeState.UP && before.state() == NodeState.UP
                || freeMb() < before.freeMb()
                || sessionCap() - reservations.sessionCount() < before.sessionCap()
                        - before.reservations.sessionCount()
                || !costModel.equals(before.costModel) || !address.equals(before.address);
    }

    public NodeLoad withReservations(ReservationBook book) {
        return new NodeLoad(nodeId, address, limits, costModel, measurements, book, drainRequested, updatedAt,
                departed);
    }

    public NodeLoad withDrainRequested(boolean drain) {
        return new NodeLoad(nodeId, address, limits, costModel, measurements, reservations, drain, updatedAt,
                departed);
    }

    /**
     * A fresh self-description from the node, keeping the drain flag others set, and the reservations reconciled
     * with the sessions the node reports it holds ({@code fresh}'s book).
     */
    public NodeLoad refreshedBy(NodeLoad fresh, java.util.Set<String> expired) {
        return new NodeLoad(nodeId, fresh.address, fresh.limits, fresh.costModel, fresh.measurements,
                reservations.reconciledWith(fresh.reservations, expired), drainRequested, fresh.updatedAt);
    }

    /** The tombstone of this entry's member: nothing reserved, nothing placeable. */
    public NodeLoad departedMember() {
        return new NodeLoad(nodeId, address, limits, costModel, measurements, ReservationBook.EMPTY, drainRequested,
                updatedAt, true);
    }

    /** The entry without its reservation list (the totals stay): what placement reads of every node. */
    public NodeLoad summary() {
        return withReservations(reservations.summary());
    }
}
