package org.farmgate.durable;

import java.time.Instant;

/**
 * Which history rows a report reads: rustguac's filters ({@code user} and {@code entry} match part of the name, any
 * case; {@code type} exactly; the start from {@code from} (included) to {@code to} (excluded): whole days are
 * read from the daily rollup), and the owner a non-admin is held to.
 * Filter values are bound as parameters and their LIKE wildcards escaped: they match as typed.
 *
 * @param ownerId when set, only the sessions this identity owns
 * @param before keyset paging for long reads (the CSV): rows that sort after this one
 */
public record SessionFilter(String user, String entry, String type, Instant from, Instant to, String ownerId,
        int limit, int offset, Cursor before) {

    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1000;

    /** The last row of a page, in the report's order (newest start first). */
    public record Cursor(Instant startedAt, String sessionId) {
    }

    public SessionFilter {
        limit = limit <= 0 ? DEFAULT_LIMIT : Math.min(limit, MAX_LIMIT);
        offset = Math.max(0, offset);
    }

    public static SessionFilter all() {
        return new SessionFilter(null, null, null, null, null, null, DEFAULT_LIMIT, 0, null);
    }

    public SessionFilter after(Cursor cursor, int pageSize) {
        return new SessionFilter(user, entry, type, from, to, ownerId, pageSize, 0, cursor);
    }

    public SessionFilter ownedBy(String owner) {
        return new SessionFilter(user, entry, type, from, to, owner, limit, offset, before);
    }
}
