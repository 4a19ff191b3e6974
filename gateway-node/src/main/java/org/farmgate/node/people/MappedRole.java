package org.farmgate.node.people;

import java.io.Serializable;
import org.farmgate.model.Role;

/** A group-to-role mapping made at run time, as every node reads it at a sign-in. */
public record MappedRole(long id, String group, Role role) implements Serializable {
}
