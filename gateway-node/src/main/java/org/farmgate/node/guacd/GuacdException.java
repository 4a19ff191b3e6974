package org.farmgate.node.guacd;

import org.farmgate.error.UpstreamException;

/**
 * guacd refused or failed a connection. Carries the Guacamole status code to pass on to the client: guacd's own
 * when it sent an {@code error}, ours when guacd could not be reached or stopped answering.
 */
public final class GuacdException extends UpstreamException {

    private static final long serialVersionUID = 1L;

    public GuacdException(int status, String message) {
        super(status, message);
    }
}
