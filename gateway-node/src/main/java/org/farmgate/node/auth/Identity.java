package org.farmgate.node.auth;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.io.Serializable;
import java.util.Set;
import org.farmgate.model.Role;

/**
 * Who is calling: a stable id (what owns sessions and quota places; never reused), the name shown, the role and the
 * address-book groups it carries.
 */
public record Identity(String id, String name, Role role, Set<String> groups) implements Serializable {

    public Identity {
        groups = Set.copyOf(groups);
    }

    @JsonIgnore
    public boolean isAdmin() {
        return role == Role.ADMIN;
    }
}
