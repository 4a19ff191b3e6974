package org.farmgate.node.auth;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.io.Serializable;
import java.util.Set;
import org.farmgate.model.Role;

/**
 * Who is calling: a stable id (what owns sessions and quota places; never reused), the name shown, the role and the
 * address-book groups it carries.
 *
 * @param email a person's address, from their identity provider; null for tokens
 * @param share for someone who came by a share link, the one session they may attach to and how; null otherwise.
 *     Such an identity exists only in tickets: it never authenticates an API call and never owns anything.
 */
public record Identity(String id, String name, Role role, Set<String> groups,
        @JsonInclude(JsonInclude.Include.NON_NULL) String email,
        @JsonInclude(JsonInclude.Include.NON_NULL) ShareScope share) implements Serializable {

    /** What a share link lets its holder do. */
    public record ShareScope(String shareId, String sessionId, boolean readOnly) implements Serializable {
    }

    public Identity {
        groups = Set.copyOf(groups);
    }

    public Identity(String id, String name, Role role, Set<String> groups) {
        this(id, name, role, groups, null, null);
    }

    /** Someone holding share link {@code scope}, under the name they gave. */
    public static Identity watcher(String name, ShareScope scope) {
        return new Identity("share:" + scope.shareId(), name, Role.VIEWER, Set.of(), null, scope);
    }

    /** Someone signed in through the identity provider, rather than a token. */
    public static Identity person(String subject, String name, String email, Role role, Set<String> groups) {
        return new Identity(PERSON_PREFIX + subject, name, role, groups, email, null);
    }

    public static final String PERSON_PREFIX = "oidc:";

    @JsonIgnore
    public boolean isAdmin() {
        return role == Role.ADMIN && share == null;
    }
}
