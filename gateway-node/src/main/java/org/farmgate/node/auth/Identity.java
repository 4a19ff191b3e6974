package org.farmgate.node.auth;

import java.util.Set;
import org.farmgate.model.Role;

/** Who is calling: the token's name, its role and the address-book groups it carries. */
public record Identity(String name, Role role, Set<String> groups) {

    public Identity {
        groups = Set.copyOf(groups);
    }

    public boolean isAdmin() {
        return role == Role.ADMIN;
    }
}
