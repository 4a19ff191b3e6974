package org.farmgate.model;

import java.io.Serializable;
import java.time.Instant;

/**
 * Memory the router charged a node for one session. {@code active} once the session's guacd connection exists:
 * from then on the host's measured available memory reflects it, before that only the reservation does.
 */
public record Reservation(String sessionId, Protocol protocol, int memoryMb, boolean active, Instant createdAt)
        implements Serializable {

    public Reservation activated() {
        return new Reservation(sessionId, protocol, memoryMb, true, createdAt);
    }
}
