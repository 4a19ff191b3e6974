package org.farmgate.error;

import org.farmgate.protocol.GuacamoleStatus;

/**
 * A request reached a node, or may have, and no answer came in time (HTTP 504): whether it took effect is not known.
 * Told apart from a node that cannot be reached at all, since acting as if it had failed (opening the session
 * elsewhere, forgetting a record) could make two of one thing.
 */
public class OutcomeUnknownException extends GatewayException {

    private static final long serialVersionUID = 1L;

    public OutcomeUnknownException(String message) {
        super(GuacamoleStatus.UPSTREAM_TIMEOUT, message);
    }
}
