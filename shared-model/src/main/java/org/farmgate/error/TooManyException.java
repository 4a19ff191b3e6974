package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** The caller is over a limit of its own: sessions per user, WebSockets per session (HTTP 429). */
public class TooManyException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public TooManyException(String message) {
        super(GuacamoleStatus.CLIENT_TOO_MANY, message);
    }
}
