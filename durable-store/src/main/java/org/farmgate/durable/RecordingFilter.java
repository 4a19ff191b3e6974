package org.farmgate.durable;

import java.time.Instant;

/**
 * Which recordings to list: each field narrows, null leaves it open.
 *
 * @param user who made the session: their name, e-mail address or id
 * @param entry the address-book entry it was opened from
 * @param ownerId only this person's sessions (a person who may watch only their own)
 */
public record RecordingFilter(String user, String entry, String state, Instant from, Instant to, String ownerId,
        int limit, int offset) {

    public static final int MAX_LIMIT = 500;

    public RecordingFilter {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("limit must be 1 to " + MAX_LIMIT);
        }
        if (offset < 0) {
            throw new IllegalArgumentException("offset must not be negative");
        }
    }

    public RecordingFilter onlyOwner(String owner) {
        return new RecordingFilter(user, entry, state, from, to, owner, limit, offset);
    }
}
