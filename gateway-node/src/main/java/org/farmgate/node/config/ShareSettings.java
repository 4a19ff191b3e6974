package org.farmgate.node.config;

import java.time.Duration;

/**
 * Bounds on share links: how long one may live, how many one session may have, and how many may watch a session at
 * once. Each watcher is a guacd user of its own (a second display encoder on the node's guacd), and each link a
 * cluster record, so neither may grow without bound at one careless or hostile owner's word.
 */
public record ShareSettings(Duration maxLifetime, Duration defaultLifetime, int maxPerSession, int maxWatchers) {

    public static ShareSettings from(ConfigSource source) {
        Duration max = Duration.ofSeconds(source.integer("GW_SHARE_MAX_SECS", 86_400, 60, 30 * 86_400));
        return new ShareSettings(max, max.compareTo(Duration.ofHours(1)) < 0 ? max : Duration.ofHours(1),
                source.integer("GW_MAX_SHARES_PER_SESSION", 16, 1, 1000),
                source.integer("GW_MAX_WATCHERS_PER_SESSION", 8, 0, 1000));
    }
}
