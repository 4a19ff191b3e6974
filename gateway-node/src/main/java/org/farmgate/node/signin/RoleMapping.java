package org.farmgate.node.signin;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.farmgate.model.Role;
import org.farmgate.node.config.OidcSettings;
import org.farmgate.node.people.Standing;

/**
 * What a person may do, from what the identity provider says of them: the highest role that the role claim names or
 * that any of their groups maps to (in the configuration, or at run time by an admin), capped by the configured
 * maximum. Nothing matched: no role, and the person is refused; there is no default role to fall into by accident.
 * A role an admin gave the person wins over their groups'.
 */
public final class RoleMapping {

    private final String roleClaim;
    private final String groupsClaim;
    private final Map<String, Role> mappings;
    private final Role max;

    public RoleMapping(OidcSettings settings) {
        this.roleClaim = settings.roleClaim();
        this.groupsClaim = settings.groupsClaim();
        this.mappings = settings.roleMappings();
        this.max = settings.maxRole();
    }

    public Optional<Role> roleOf(JsonObject claims) {
        return roleOf(claims, Map.of(), null);
    }

    /**
     * The person's role: one an admin gave them ({@code standing}) if any, else the highest that their claims and
     * groups give by the configuration's mappings and those made at run time ({@code runtime}); capped either way.
     */
    public Optional<Role> roleOf(JsonObject claims, Map<String, Role> runtime, Standing standing) {
        if (standing != null && standing.roleOverride() != null) {
            return Optional.of(capped(standing.roleOverride()));
        }
        Role best = null;
        if (roleClaim != null) {
            for (String named : strings(claims.getValue(roleClaim))) {
                Role role = parse(named);
                best = higher(best, role);
            }
        }
        for (String group : groupsOf(claims)) {
            best = higher(higher(best, mappings.get(group)), runtime.get(group));
        }
        return Optional.ofNullable(best).map(this::capped);
    }

    private Role capped(Role role) {
        return rank(role) > rank(max) ? max : role;
    }

    /**
     * Which of two roles a person with both gets: the chain's order, with the auditor above a viewer and below an
     * operator (it reads everyone's history, and does nothing an operator does), so that the choice does not depend
     * on the order of the provider's groups.
     */
    private static int rank(Role role) {
        return switch (role) {
            case VIEWER -> 0;
            case AUDITOR -> 1;
            case OPERATOR -> 2;
            case POWERUSER -> 3;
            case ADMIN -> 4;
        };
    }

    /** The groups claim, as plain names (a provider that sends paths, {@code /farm/admins}, gets them kept whole). */
    public Set<String> groupsOf(JsonObject claims) {
        return new LinkedHashSet<>(strings(claims.getValue(groupsClaim)));
    }

    private static Role higher(Role a, Role b) {
        if (b == null) {
            return a;
        }
        return a == null || rank(b) >= rank(a) ? b : a;
    }

    private static Role parse(String name) {
        try {
            return Role.parse(name);
        } catch (IllegalArgumentException e) {
            return null; // a provider's own role names that are not ours
        }
    }

    private static List<String> strings(Object value) {
        if (value instanceof String text) {
            return List.of(text);
        }
        if (value instanceof JsonArray array) {
            return array.stream().filter(String.class::isInstance).map(String.class::cast).toList();
        }
        return List.of();
    }
}
