package org.farmgate.node.hostkey;

import java.io.Serializable;
import java.time.Instant;

/**
 * A host key the cluster trusts for a target as people name it: {@code how} it came to be trusted (on first use,
 * or pinned by an admin), by whom and when, and the session whose creation trusted it first (null for a pin).
 */
public record TrustedKey(String host, int port, String hostKey, String fingerprint, How how, String by,
        String sessionId, Instant at) implements Serializable {

    public enum How {
        FIRST_USE("first-use"), PINNED("pinned");

        private final String wireName;

        How(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }

        public static How parse(String name) {
            for (How how : values()) {
                if (how.wireName.equals(name)) {
                    return how;
                }
            }
            throw new IllegalArgumentException("unknown way a host key came to be trusted: " + name);
        }
    }

    public HostKey key() {
        return HostKey.parse("the trusted key", hostKey);
    }
}
