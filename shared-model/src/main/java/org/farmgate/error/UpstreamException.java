package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/**
 * guacd, or a server behind it, refused or failed. Keeps the numeric status guacd sent, even one this gateway does
 * not know, so that the client sees exactly what guacd said.
 */
public class UpstreamException extends GatewayException {

    private static final long serialVersionUID = 1L;

    private final int code;

    public UpstreamException(int code, String message) {
        super(statusOf(code), message);
        this.code = code;
    }

    public UpstreamException(GuacamoleStatus status, String message) {
        this(status.code(), message);
    }

    @Override
    public int guacamoleCode() {
        return code;
    }

    private static GuacamoleStatus statusOf(int code) {
        GuacamoleStatus known = GuacamoleStatus.fromCode(code);
        return known != null ? known : GuacamoleStatus.UPSTREAM_ERROR;
    }
}
