package org.farmgate.node.guacd;

/**
 * guacd refused or failed a connection. Carries the Guacamole status code to pass on to the client: guacd's own
 * when it sent an {@code error}, ours when guacd could not be reached or stopped answering.
 */
public final class GuacdException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int status;

    public GuacdException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
