package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/** No such thing, or none the caller may see (HTTP 404). */
public class NotFoundException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public NotFoundException(String message) {
        super(GuacamoleStatus.RESOURCE_NOT_FOUND, message);
    }
}
