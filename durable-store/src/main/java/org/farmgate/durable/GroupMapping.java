package org.farmgate.durable;

import java.time.Instant;

/** A group-to-role mapping an admin made at run time. */
public record GroupMapping(long id, String group, String role, Instant createdAt, String createdBy) {
}
