package org.farmgate.node.session;

import org.farmgate.protocol.GuacamoleStatus;

/**
 * What carries an active session's traffic (the tunnel). The host never writes to it; it only asks it to end, and
 * hears how it ended through the {@link TunnelEnd} the link reports back.
 */
public interface SessionLink {

    /** Ends the link from the gateway's side; the client is told {@code status} and {@code reason}. */
    void terminate(GuacamoleStatus status, String reason);

    /** Tells the client something, as one whole instruction, if it has a client and room for it now. */
    default void tell(String instruction) {
    }
}
