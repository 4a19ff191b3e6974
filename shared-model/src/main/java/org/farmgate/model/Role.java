package org.farmgate.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Token roles, weakest first: each role may do everything the ones before it may. */
public enum Role {
    VIEWER,
    OPERATOR,
    POWERUSER,
    ADMIN;

    public boolean atLeast(Role required) {
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
        throw new IllegalArgumentException("unknown role '" + name + "' (expected viewer, operator, poweruser or admin)");
    }
}
