package org.farmgate.model;

import java.io.Serializable;
import java.util.EnumMap;
import java.util.Map;

/**
 * The memory a guacd session is expected to cost, per protocol, growing with the display's pixels.
 *
 * <p>The defaults are guacd 1.6.0's proportional set size (PSS) per session as measured on real targets (see the
 * docs/GUACD.md): SSH 16.5 MiB at 1024x768 and 20.3 at 1920x1080, RDP 22.7 and 38.5, VNC 10.4 at 1024x768.
 * Two display sizes fix a line for SSH and RDP; VNC was measured at one size only, so its slope assumes one 32-bit
 * framebuffer copy (4 MiB per megapixel). {@link #FIELD_FREERDP3} carries the field's 158 MB per RDP session
 * (FreeRDP 3 with the graphics pipeline, summed RSS), for hosts that run that stack.
 */
public final class CostModel implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Fixed part and the part that grows with the display, in MiB. */
    public record Cost(double baseMb, double perMegapixelMb) implements Serializable {

        public Cost {
            if (baseMb < 0 || perMegapixelMb < 0) {
                throw new IllegalArgumentException("costs cannot be negative: " + baseMb + ", " + perMegapixelMb);
            }
        }
    }

    public static final CostModel MEASURED_GUACD_1_6 = new CostModel(Map.of(
            Protocol.SSH, new Cost(14.2, 2.95),
            Protocol.RDP, new Cost(13.05, 12.27),
            Protocol.VNC, new Cost(7.25, 4.0)));

    public static final CostModel FIELD_FREERDP3 = MEASURED_GUACD_1_6.with(Protocol.RDP, new Cost(158, 0));

    private final EnumMap<Protocol, Cost> costs;

    public CostModel(Map<Protocol, Cost> costs) {
        EnumMap<Protocol, Cost> copy = new EnumMap<>(Protocol.class);
        copy.putAll(costs);
        for (Protocol protocol : Protocol.values()) {
            if (!copy.containsKey(protocol)) {
                throw new IllegalArgumentException("cost model has no cost for " + protocol.wireName());
            }
        }
        this.costs = copy;
    }

    public CostModel with(Protocol protocol, Cost cost) {
        EnumMap<Protocol, Cost> copy = new EnumMap<>(costs);
        copy.put(protocol, cost);
        return new CostModel(copy);
    }

    public Cost cost(Protocol protocol) {
        return costs.get(protocol);
    }

    /** Whole MiB, rounded up: a reservation must never be smaller than what it stands for. */
    public int estimateMb(Protocol protocol, DisplaySize display) {
        Cost cost = costs.get(protocol);
        return (int) Math.ceil(cost.baseMb() + cost.perMegapixelMb() * display.megapixels());
    }

    public Map<Protocol, Cost> costs() {
        return Map.copyOf(costs);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof CostModel model && model.costs.equals(costs);
    }

    @Override
    public int hashCode() {
        return costs.hashCode();
    }

    @Override
    public String toString() {
        return "CostModel" + costs;
    }
}
