package org.farmgate.durable;

import java.time.Instant;

/**
 * Which audit rows to read: by actor (id or name, exact), action (exact, or a prefix ending in {@code .}, such as
 * {@code token.}), outcome, target (part of it), time; newest first, paged.
 */
public record AuditFilter(String actor, String action, String outcome, String target, Instant from, Instant to,
        int limit, int offset) {

    public static final int DEFAULT_LIMIT = 200;
    public static final int MAX_LIMIT = 1000;

    public AuditFilter {
        limit = limit <= 0 ? DEFAULT_LIMIT : Math.min(limit, MAX_LIMIT);
        offset = Math.max(0, offset);
    }

    public static AuditFilter all() {
        return new AuditFilter(null, null, null, null, null, null, DEFAULT_LIMIT, 0);
    }
}
