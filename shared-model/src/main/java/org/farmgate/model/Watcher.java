package org.farmgate.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;
import java.time.Instant;
import java.util.Objects;

/**
 * Someone attached to a session through one of its share links, as its owner sees them.
 *
 * @param name the name the watcher gave (or "guest"), never an identity of theirs
 * @param shareId the share link they came by, which the owner may revoke
 * @param readOnly whether their input is dropped
 */
public record Watcher(@JsonProperty("name") String name, @JsonProperty("share_id") String shareId,
        @JsonProperty("read_only") boolean readOnly, @JsonProperty("since") Instant since) implements Serializable {

    public Watcher {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(shareId, "shareId");
        Objects.requireNonNull(since, "since");
    }
}
