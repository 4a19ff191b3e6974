package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** A known caller asks for more than its role allows (HTTP 403). */
public class ForbiddenException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public ForbiddenException(String message) {
        super(GuacamoleStatus.CLIENT_FORBIDDEN, message);
    }
}
