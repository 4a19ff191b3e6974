package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** A service the gateway depends on cannot be reached or is not configured (HTTP 503). */
public class UnavailableException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public UnavailableException(String message) {
        super(GuacamoleStatus.UPSTREAM_UNAVAILABLE, message);
    }
}
