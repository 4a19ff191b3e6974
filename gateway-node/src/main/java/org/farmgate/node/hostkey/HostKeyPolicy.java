package org.farmgate.node.hostkey;

import java.util.Locale;

/**
 * How SSH targets' host keys are checked ({@code GW_SSH_HOST_KEYS}): {@code accept-new} (OpenSSH's word: a key never
 * seen for a target is trusted at its first session and checked ever after), {@code strict} (only keys an admin
 * pinned or an address-book entry carries), or {@code off} (any key, as before).
 */
public enum HostKeyPolicy {
    OFF, ACCEPT_NEW, STRICT;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The policy of that name, or null. */
    public static HostKeyPolicy parse(String name) {
        for (HostKeyPolicy each : values()) {
            if (each.wireName().equals(name)) {
                return each;
            }
        }
        return null;
    }
}
