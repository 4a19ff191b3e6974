package org.farmgate.node.people;

import java.io.Serializable;
import org.farmgate.model.Role;

/**
 * What an admin decided about a person, as every node reads it at their sign-in: kept in the cluster only for those
 * of whom an admin made an exception.
 *
 * @param roleOverride the person's role whatever their groups give; null: their groups decide
 */
public record Standing(Role roleOverride, boolean disabled) implements Serializable {

    boolean isException() {
        return roleOverride != null || disabled;
    }
}
