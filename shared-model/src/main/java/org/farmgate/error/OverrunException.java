package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** The caller sent more than a limit allows in one piece (HTTP 413). */
public class OverrunException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public OverrunException(String message) {
        super(GuacamoleStatus.CLIENT_OVERRUN, message);
    }
}
