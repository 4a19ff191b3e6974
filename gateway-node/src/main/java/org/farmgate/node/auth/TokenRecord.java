package org.farmgate.node.auth;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;
import java.time.Instant;
import java.util.Set;
import org.farmgate.model.Role;

/**
 * A named API token as stored: its hash, never the token itself. The API shows it without the hash. The id is new
 * for every token, so that what a token owns is never inherited by a later token of the same name.
 *
 * @param owner the person whose personal token this is (revoked with them when they are disabled), null otherwise
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TokenRecord(
        @JsonProperty("id") String id,
        @JsonProperty("name") String name,
        @JsonProperty("role") Role role,
        @JsonProperty("groups") Set<String> groups,
        @JsonProperty("created_at") Instant createdAt,
        @JsonProperty("expires_at") Instant expiresAt,
        @JsonIgnore String hash,
        @JsonProperty("owner") String owner) implements Serializable {

    /** A token of no one person's: made by an admin, for a script or a service. */
    public TokenRecord(String id, String name, Role role, Set<String> groups, Instant createdAt, Instant expiresAt,
            String hash) {
        this(id, name, role, groups, createdAt, expiresAt, hash, null);
    }

    public boolean isExpired(Instant now) {
        return expiresAt != null && !now.isBefore(expiresAt);
    }

    public Identity identity() {
        return new Identity(id, name, role, groups);
    }
}
