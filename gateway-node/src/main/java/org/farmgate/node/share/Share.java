package org.farmgate.node.share;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;
import java.time.Instant;

/**
 * A share link's cluster record, under its id. The link itself (the token) is shown once and stored only as its
 * hash; the id is the hash's first 64 bits, so that a presented token finds its record in one read and an owner can
 * name a link (to revoke it) without holding it.
 *
 * <p>As JSON (the API's view of a link) it has neither the hash nor its maker's id, and says {@code mode}.
 *
 * @param createdById whom the link was made by (the session's owner, or an admin shadowing it)
 */
public record Share(@JsonProperty("share_id") String shareId, @JsonProperty("session_id") String sessionId,
        @JsonIgnore boolean readOnly, @JsonProperty("created_by") String createdBy,
        @JsonIgnore String createdById, @JsonProperty("created_at") Instant createdAt,
        @JsonProperty("expires_at") Instant expiresAt, @JsonIgnore String tokenHash) implements Serializable {

    public static final String TOKEN_PREFIX = "sht_";
    public static final String ID_PREFIX = "shr_";

    /** The id of the link whose token hashes to {@code tokenHash}. */
    static String idOf(String tokenHash) {
        return ID_PREFIX + tokenHash.substring(0, 16);
    }

    @JsonProperty("mode")
    public String mode() {
        return readOnly ? "read-only" : "collaborative";
    }

    public boolean standsAt(Instant now) {
        return now.isBefore(expiresAt);
    }

    @Override
    public String toString() {
        return "Share[" + shareId + ", session " + sessionId + ", " + mode() + ", until " + expiresAt + "]";
    }
}
