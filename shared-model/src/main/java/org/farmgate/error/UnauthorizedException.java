package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** No credential, or one the gateway does not know (HTTP 401). */
public class UnauthorizedException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public UnauthorizedException(String message) {
        super(GuacamoleStatus.CLIENT_UNAUTHORIZED, message);
    }
}
