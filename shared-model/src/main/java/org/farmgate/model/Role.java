package org.farmgate.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * Roles, weakest first: each of the first four may do everything the ones before it may. {@link #AUDITOR} stands
 * apart (Apache Guacamole 1.6's AUDIT permission): it reads history, the audit log and reports, which only an admin
 * may too, and otherwise may do what a viewer may; it changes nothing.
 */
public enum Role {
    VIEWER,
    OPERATOR,
    POWERUSER,
    ADMIN,
    AUDITOR;

    public boolean atLeast(Role required) {
        if (this == AUDITOR) {
            return required == AUDITOR || required == VIEWER;
        }
        if (required == AUDITOR) {
            return this == ADMIN;
        }
        return compareTo(required) >= 0;
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @throws IllegalArgumentException naming the accepted values */
    @JsonCreator
    public static Role parse(String name) {
        for (Role role : values()) {
            if (role.wireName().equals(name)) {
                return role;
            }
        }
        throw new IllegalArgumentException("unknown role '" + name + "' (expected viewer, operator, poweruser, admin or auditor)");
    }
}
