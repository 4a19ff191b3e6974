package org.farmgate.router;

import java.util.Map;
import org.farmgate.error.GatewayException;
import org.farmgate.protocol.GuacamoleStatus;

/** No node can take the session now; {@code reason} says why, per node. Clients should retry later. */
public final class NoCapacityException extends GatewayException {

    private static final long serialVersionUID = 1L;
    /** Seconds a client should wait before it tries again: a few heartbeats, by which the cluster's view moved. */
    public static final String RETRY_AFTER_SECS = "10";

    private final String reason;

    public NoCapacityException(String reason) {
        super(GuacamoleStatus.SERVER_BUSY, "no capacity", Map.of("reason", reason),
                Map.of("Retry-After", RETRY_AFTER_SECS));
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}
