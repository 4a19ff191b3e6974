package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** The request conflicts with the current state (HTTP 409). */
public class ConflictException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public ConflictException(String message) {
        super(GuacamoleStatus.RESOURCE_CONFLICT, message);
    }
}
