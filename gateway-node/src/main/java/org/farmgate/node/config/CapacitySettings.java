package org.farmgate.node.config;

import java.time.Duration;

/**
 * What this node offers to the cluster's placement.
 *
 * @param budgetMb memory for guacd sessions, or -1: the host's available memory at start, minus the margin
 * @param marginMb memory always left to the host, or -1: 5 % of its total, at least 256 MB
 * @param calibrate whether the cost model follows the measured guacd memory per session, within the bounds
 * @param guacdLimitMb the memory limit of the container guacd runs in when it is not the node's (a pod's guacd
 *     sidecar: the node's own cgroup says nothing of it), or -1: guacd shares the node's host or container
 * @param placementChoices how many nodes, drawn at random, a new session goes to the best of (power of d choices;
 *     bench's {@code ScaleSimulation} measured it); 0 ranks every node
 */
public record CapacitySettings(long budgetMb, long marginMb, int maxSessionsPerCore, Duration guacdProbeInterval,
        Duration drainGrace, boolean calibrate, double calibrationMinFactor, double calibrationMaxFactor,
        long guacdLimitMb, int placementChoices) {

    static CapacitySettings from(ConfigSource source) {
        double min = decimal(source, "GW_COST_CALIBRATION_MIN_FACTOR", 0.5);
        double max = decimal(source, "GW_COST_CALIBRATION_MAX_FACTOR", 2.0);
        if (min <= 0 || max < min) {
            throw new ConfigException("GW_COST_CALIBRATION_MIN_FACTOR must be positive and at most "
                    + "GW_COST_CALIBRATION_MAX_FACTOR, got " + min + " and " + max);
        }
        return new CapacitySettings(
                source.integer("GW_MEMORY_BUDGET_MB", -1, -1, Integer.MAX_VALUE),
                source.integer("GW_MEMORY_MARGIN_MB", -1, -1, Integer.MAX_VALUE),
                source.integer("GW_MAX_SESSIONS_PER_CORE", 0, 0, 100_000),
                Duration.ofMillis(source.integer("GW_GUACD_PROBE_MS", 5000, 100, 600_000)),
                Duration.ofSeconds(source.integer("GW_DRAIN_GRACE_SECS", 60, 0, 86_400)),
                source.bool("GW_COST_CALIBRATION", false),
                min,
                max,
                source.integer("GW_GUACD_MEMORY_LIMIT_MB", -1, -1, Integer.MAX_VALUE),
                source.integer("GW_PLACEMENT_CHOICES", 0, 0, 64));
    }

    private static double decimal(ConfigSource source, String key, double fallback) {
        String raw = source.string(key, null);
        if (raw == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(raw);
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " must be a number, got '" + raw + "'");
        }
    }
}
