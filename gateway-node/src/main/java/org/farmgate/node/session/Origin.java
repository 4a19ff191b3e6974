package org.farmgate.node.session;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Where a session came from, for its history: the client's address as the node that took the create call saw it
 * (through a trusted balancer, the address it forwarded), the address-book entry it was opened from, if any, and
 * whether its history keeps a recording (decided there, where the entry and the caller are known).
 *
 * @param entry null for an ad-hoc session
 * @param displayName the entry's display name, when it has one
 */
public record Origin(@JsonProperty("client_address") String clientAddress, @JsonProperty("entry") EntryRef entry,
        @JsonProperty("display_name") String displayName, @JsonProperty("recorded") boolean recorded) {

    public static final Origin UNKNOWN = new Origin(null, null, null, false);

    public Origin(String clientAddress, EntryRef entry, String displayName) {
        this(clientAddress, entry, displayName, false);
    }

    public static Origin adHoc(String clientAddress) {
        return new Origin(clientAddress, null, null, false);
    }

    public Origin recorded(boolean value) {
        return new Origin(clientAddress, entry, displayName, value);
    }
}
