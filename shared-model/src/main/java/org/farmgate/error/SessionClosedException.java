package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** The session exists but has ended, so it cannot be attached to again. */
public class SessionClosedException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public SessionClosedException(String message) {
        super(GuacamoleStatus.RESOURCE_CLOSED, message);
    }
}
