package org.farmgate.durable;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * An API token as the database keeps it: its hash, never the token. Groups are names without line breaks, kept one
 * per line in one column.
 *
 * @param ownerId the person a personal token is theirs, null for other tokens
 */
public record TokenRow(String id, String name, String hash, String role, List<String> groups, Instant createdAt,
        Instant expiresAt, String createdBy, String ownerId) {

    public TokenRow {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(hash, "hash");
        groups = List.copyOf(groups);
        createdAt = Fact.micros(createdAt);
        expiresAt = expiresAt == null ? null : Fact.micros(expiresAt);
    }
}
