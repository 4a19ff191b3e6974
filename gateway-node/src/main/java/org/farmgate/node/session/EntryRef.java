package org.farmgate.node.session;

import com.fasterxml.jackson.annotation.JsonProperty;

/** An address-book entry a session is opened from. */
public record EntryRef(@JsonProperty("scope") String scope, @JsonProperty("folder") String folder,
        @JsonProperty("name") String name) {
}
