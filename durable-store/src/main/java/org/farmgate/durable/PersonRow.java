package org.farmgate.durable;

import java.time.Instant;
import java.util.List;

/**
 * A person who signed in, as the database keeps them: who the identity provider says they are, the role of their last
 * sign-in, and what an admin decided (a role that overrides their groups', or that they may not sign in).
 *
 * @param id the node's id of the person ({@code oidc:} and the provider's subject)
 */
public record PersonRow(String id, String subject, String name, String email, String role, String roleOverride,
        boolean disabled, List<String> groups, Instant firstSeen, Instant lastSeen) {

    public PersonRow {
        groups = List.copyOf(groups);
    }
}
