package org.farmgate.router.store;

import java.util.Map;
import org.farmgate.error.GatewayException;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * A part of the cluster's shared state cannot be read or changed now, or not trusted: its member is leaving or
 * unreachable, answers as no node of ours does (a member without the cluster key), or holds a copy older than the
 * latest write (a replay). Nothing was decided on it; the client should try again shortly (HTTP 503).
 */
public final class SharedStateUnavailableException extends GatewayException {

    private static final long serialVersionUID = 1L;
    /** Seconds to wait: the failure detector's and the heartbeat's few seconds, by which the state has moved. */
    public static final String RETRY_AFTER_SECS = "5";

    public SharedStateUnavailableException(String message) {
        super(GuacamoleStatus.UPSTREAM_UNAVAILABLE, message, Map.of(), Map.of("Retry-After", RETRY_AFTER_SECS));
    }
}
