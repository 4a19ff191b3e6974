package org.farmgate.node.session;

import org.farmgate.protocol.GuacamoleStatus;

/** A WebSocket may not attach to the session it named; the status is what the client is told. */
public final class AttachRefusedException extends Exception {

    private static final long serialVersionUID = 1L;

    private final transient GuacamoleStatus status;

    public AttachRefusedException(GuacamoleStatus status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public GuacamoleStatus status() {
        return status;
    }
}
