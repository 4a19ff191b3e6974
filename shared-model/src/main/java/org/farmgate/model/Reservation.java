package org.farmgate.model;

import java.io.Serializable;
import java.time.Instant;

/**
 * Memory the router charged a node for one session. {@code active} once the node's heartbeat says the session's
 * guacd connection exists, in the same write as the host measurement taken with it: from then on the measured
 * available memory reflects it, before that only the reservation does.
 */
public record Reservation(String sessionId, Protocol protocol, int memoryMb, boolean active, Instant createdAt)
        implements Serializable {
}
