package org.farmgate.model;

import java.io.Serializable;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The memory guacd's sessions are expected to cost, per protocol: each session's own, growing with the display's
 * pixels, and what guacd takes once for a protocol while any of its sessions runs (its client library and what that
 * loads, whose pages every session's process shares).
 *
 * <p>The defaults are fitted to guacd 1.6.0's proportional set size (PSS) measured through a node against real
 * consoles, 1 and 20 sessions at 1024x768 and 1920x1080, idle and busy ({@code guacd.CostModelCheck}, docs/GUACD.md):
 * every one of those 24 rows within 10 % of the model. A session alone carries all of its protocol's shared pages,
 * twenty share them; hence the once-per-protocol term. {@link #FIELD_FREERDP3} carries the field's 158 MB per RDP
 * session (FreeRDP 3 with the graphics pipeline, summed RSS), for hosts that run that stack.
 */
public record CostModel(Map<Protocol, Cost> costs) implements Serializable {

    /**
     * What a session costs, in MiB: a fixed part and a part that grows with the display, and what guacd takes once
     * for the protocol while any of its sessions runs on the host ({@code protocolMb}: the protocol's client library
     * and what it loads, FreeRDP, libssh2, libvncclient, shared by all its sessions' processes).
     */
    public record Cost(double baseMb, double perMegapixelMb, double protocolMb) implements Serializable {

        public Cost {
            if (baseMb < 0 || perMegapixelMb < 0 || protocolMb < 0) {
                throw new IllegalArgumentException("costs cannot be negative: " + baseMb + ", " + perMegapixelMb
                        + ", " + protocolMb);
            }
        }

        /** A cost with nothing charged once per protocol: a flat or a field figure per session. */
        public Cost(double baseMb, double perMegapixelMb) {
            this(baseMb, perMegapixelMb, 0);
        }

        public Cost scaled(double factor) {
            return new Cost(baseMb * factor, perMegapixelMb * factor, protocolMb * factor);
        }
    }

    public static final CostModel MEASURED_GUACD_1_6 = new CostModel(Map.of(
            Protocol.SSH, new Cost(11.5, 4.0, 6),
            Protocol.RDP, new Cost(12.6, 11.7, 18),
            Protocol.VNC, new Cost(3.5, 7.7, 4.3)));

    public static final CostModel FIELD_FREERDP3 = MEASURED_GUACD_1_6.with(Protocol.RDP, new Cost(158, 0));

    /** A record, so that the cluster's compact form carries it (a node's entry holds it); kept in an EnumMap. */
    public CostModel {
        EnumMap<Protocol, Cost> copy = new EnumMap<>(Protocol.class);
        copy.putAll(costs);
        for (Protocol protocol : Protocol.values()) {
            if (!copy.containsKey(protocol)) {
                throw new IllegalArgumentException("cost model has no cost for " + protocol.wireName());
            }
        }
        costs = copy;
    }

    public CostModel with(Protocol protocol, Cost cost) {
        EnumMap<Protocol, Cost> copy = new EnumMap<>(costs);
        copy.put(protocol, cost);
        return new CostModel(copy);
    }

    public Cost cost(Protocol protocol) {
        return costs.get(protocol);
    }

    /**
     * One session's own cost, whole MiB rounded up: a reservation must never be smaller than what it stands for.
     * Not in it: {@link #protocolsMb}, charged once per host.
     */
    public int estimateMb(Protocol protocol, DisplaySize display) {
        Cost cost = costs.get(protocol);
        return (int) Math.ceil(cost.baseMb() + cost.perMegapixelMb() * display.megapixels());
    }

    /** What guacd takes once for each protocol {@code inUse} says has a session on the host, whole MiB. */
    public int protocolsMb(Predicate<Protocol> inUse) {
        int total = 0;
        for (Map.Entry<Protocol, Cost> cost : costs.entrySet()) {
            total += inUse.test(cost.getKey()) ? (int) Math.ceil(cost.getValue().protocolMb()) : 0;
        }
        return total;
    }

    @Override
    public Map<Protocol, Cost> costs() {
        return Map.copyOf(costs);
    }

    @Override
    public String toString() {
        return "CostModel" + costs;
    }
}
