package org.farmgate.router;

/** No node can take the session now; the message says why, per node. */
public final class NoCapacityException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public NoCapacityException(String message) {
        super(message, null, false, false);
    }
}
