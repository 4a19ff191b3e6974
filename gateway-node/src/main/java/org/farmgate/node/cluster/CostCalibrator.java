package org.farmgate.node.cluster;

import java.util.EnumMap;
import java.util.Map;
import org.farmgate.model.CostModel;
import org.farmgate.model.Protocol;

/**
 * Moves the cost model towards what guacd really uses on this host, within bounds. guacd's memory can only be
 * attributed to a protocol while every active session speaks it, so the model learns from those moments only, and
 * only from three sessions up (one session's PSS says more about the desktop than about the protocol).
 */
final class CostCalibrator {

    private static final int MIN_SESSIONS = 3;
    private static final double WEIGHT = 0.3;

    private final CostModel configured;
    private final boolean enabled;
    private final double minFactor;
    private final double maxFactor;
    private final Map<Protocol, Double> factors = new EnumMap<>(Protocol.class);

    CostCalibrator(CostModel configured, boolean enabled, double minFactor, double maxFactor) {
        this.configured = configured;
        this.enabled = enabled;
        this.minFactor = minFactor;
        this.maxFactor = maxFactor;
    }

    /**
     * @param activeSessions active sessions by protocol
     * @param configuredMb what the configured model charges for those sessions
     * @param measuredMb guacd's PSS above its idle baseline, or -1
     */
    synchronized void observe(Map<Protocol, Integer> activeSessions, long configuredMb, long measuredMb) {
        if (!enabled || measuredMb < 0 || configuredMb <= 0 || activeSessions.size() != 1) {
            return;
        }
        Map.Entry<Protocol, Integer> only = activeSessions.entrySet().iterator().next();
        if (only.getValue() < MIN_SESSIONS) {
            return;
        }
        double target = (double) measuredMb / configuredMb;
        double previous = factors.getOrDefault(only.getKey(), 1.0);
        double next = (1 - WEIGHT) * previous + WEIGHT * target;
        factors.put(only.getKey(), Math.max(minFactor, Math.min(maxFactor, next)));
    }

    synchronized CostModel current() {
        CostModel model = configured;
        for (Map.Entry<Protocol, Double> factor : factors.entrySet()) {
            CostModel.Cost cost = configured.cost(factor.getKey());
            model = model.with(factor.getKey(), cost.scaled(factor.getValue()));
        }
        return model;
    }
}
