package org.farmgate.node.config;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.model.Role;

/**
 * OpenID Connect sign-in for people. Unset issuer: no sign-in, the pages ask for an API token as before.
 *
 * @param redirectBase the gateway's address as browsers reach it (scheme, host, port): the provider sends people back
 *     to {@code <redirectBase>/auth/callback}, on whichever node the balancer picks
 * @param roleClaim a claim that names a role directly (a string or a list of strings), or null
 * @param groupsClaim the claim listing the person's groups: mapped to roles, and the address book's folder groups
 * @param roleMappings group to role; a person gets the highest role any of their groups (or the role claim) gives
 * @param maxRole no one signed in gets more, whatever the provider says
 * @param idle a login unused this long ends; {@code absolute}: a login ends this long after sign-in, used or not
 * @param maxPending how many sign-ins one node may start within ten minutes (each is a cluster record until then)
 */
public record OidcSettings(String issuer, String clientId, String clientSecret, List<String> scopes,
        String redirectBase, String roleClaim, String groupsClaim, Map<String, Role> roleMappings, Role maxRole,
        Duration idle, Duration absolute, int maxPending) {

    public static final String CALLBACK_PATH = "/auth/callback";

    public static OidcSettings from(ConfigSource source) {
        String issuer = source.string("GW_OIDC_ISSUER", null);
        Duration idle = Duration.ofSeconds(source.integer("GW_LOGIN_IDLE_SECS", 3600, 60, 30 * 86_400));
        Duration absolute = Duration.ofSeconds(source.integer("GW_LOGIN_MAX_SECS", 43_200, 60, 90 * 86_400));
        int maxPending = source.integer("GW_OIDC_MAX_PENDING", 5000, 1, 1_000_000);
        if (issuer == null) {
            return new OidcSettings(null, null, null, List.of(), null, null, "groups", Map.of(), Role.ADMIN, idle,
                    absolute, maxPending);
        }
        String clientId = required(source, "GW_OIDC_CLIENT_ID");
        String redirectBase = required(source, "GW_OIDC_REDIRECT_BASE").replaceAll("/+$", "");
        URI base = URI.create(redirectBase);
        if (base.getScheme() == null || !List.of("http", "https").contains(base.getScheme()) || base.getHost() == null
                || (base.getPath() != null && !base.getPath().isEmpty())) {
            throw new ConfigException("GW_OIDC_REDIRECT_BASE: '" + redirectBase + "' must be the gateway's "
                    + "http(s)://host[:port] as browsers reach it, without a path");
        }
        List<String> scopes = source.list("GW_OIDC_SCOPES", List.of("openid", "profile", "email"));
        if (!scopes.contains("openid")) {
            throw new ConfigException("GW_OIDC_SCOPES: must include 'openid'");
        }
        return new OidcSettings(issuer.replaceAll("/+$", ""), clientId, Placeholders.refused("GW_OIDC_CLIENT_SECRET",
                source.string("GW_OIDC_CLIENT_SECRET", null)),
                scopes, redirectBase, source.string("GW_OIDC_ROLE_CLAIM", null),
                source.string("GW_OIDC_GROUPS_CLAIM", "groups"), mappings(source),
                role(source, "GW_OIDC_MAX_ROLE", Role.ADMIN), idle, absolute, maxPending);
    }

    public boolean enabled() {
        return issuer != null;
    }

    public String callbackUrl() {
        return redirectBase + CALLBACK_PATH;
    }

    /** Whether the cookie may only travel over TLS. */
    public boolean secureCookies() {
        return redirectBase != null && redirectBase.startsWith("https:");
    }

    /** {@code GW_OIDC_ROLE_MAPPINGS=farm-admins=admin,farm-operators=operator}. */
    private static Map<String, Role> mappings(ConfigSource source) {
        Map<String, Role> out = new LinkedHashMap<>();
        for (String pair : source.list("GW_OIDC_ROLE_MAPPINGS", List.of())) {
            int eq = pair.lastIndexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw new ConfigException("GW_OIDC_ROLE_MAPPINGS: '" + pair + "' is not group=role");
            }
            try {
                out.put(pair.substring(0, eq).trim(), Role.parse(pair.substring(eq + 1).trim()));
            } catch (IllegalArgumentException e) {
                throw new ConfigException("GW_OIDC_ROLE_MAPPINGS: " + e.getMessage());
            }
        }
        return Map.copyOf(out);
    }

    private static Role role(ConfigSource source, String key, Role fallback) {
        String value = source.string(key, null);
        try {
            return value == null ? fallback : Role.parse(value);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + ": " + e.getMessage());
        }
    }

    private static String required(ConfigSource source, String key) {
        String value = source.string(key, null);
        if (value == null) {
            throw new ConfigException(key + " is required when GW_OIDC_ISSUER is set");
        }
        return value;
    }

    /** Names the secret's presence, never its value. */
    @Override
    public String toString() {
        return enabled() ? "oidc[" + issuer + ", client " + clientId + ", secret " + (clientSecret == null ? "none"
                : "set") + "]" : "oidc[off]";
    }
}
