package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** The request is malformed or a value is out of range; the message names the field (HTTP 400). */
public class InvalidRequestException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public InvalidRequestException(String message) {
        super(GuacamoleStatus.CLIENT_BAD_REQUEST, message);
    }
}
