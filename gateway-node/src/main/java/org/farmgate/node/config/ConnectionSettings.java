package org.farmgate.node.config;

import java.time.Duration;

/**
 * What a client connection may cost the node before and between requests.
 *
 * @param idleTimeout a connection silent this long is closed (WebSockets included: a live tunnel is never silent)
 * @param requestTimeout a request's headers and body must arrive within this long of the connection opening, of the
 *     previous response, or (for the body) of the headers: a slow sender cannot keep a connection by trickling bytes,
 *     which resets the idle timer
 * @param maxPerAddress connections open at once from one remote address; behind a load balancer every client has
 *     its address, so raise it there
 * @param stallTimeout how long a tunnel's side (browser, relay or guacd) may read nothing while there is data for
 *     it; meanwhile back-pressure holds the other side, then the session ends with a timeout status
 */
public record ConnectionSettings(Duration idleTimeout, Duration requestTimeout, int maxPerAddress,
        Duration stallTimeout) {

    static ConnectionSettings from(ConfigSource source) {
        return new ConnectionSettings(
                Duration.ofSeconds(source.integer("GW_IDLE_TIMEOUT_SECS", 120, 5, 86_400)),
                Duration.ofSeconds(source.integer("GW_REQUEST_TIMEOUT_SECS", 30, 1, 3_600)),
                source.integer("GW_MAX_CONNECTIONS_PER_ADDRESS", 1024, 1, 1_000_000),
                Duration.ofSeconds(source.integer("GW_STALL_TIMEOUT_SECS", 60, 1, 86_400)));
    }
}
