package org.farmgate.node.tunnel;

import io.vertx.core.http.HttpServerRequest;
import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * Which browser pages may open a tunnel. A request without {@code Origin} is not from a browser and passes; a
 * browser's must come from the node's own origin (the {@code Host} it was sent to) or from a configured one, so a
 * foreign page cannot ride a user's session (cross-site WebSocket hijacking).
 */
public final class OriginPolicy {

    private final List<String> allowed;
    private final boolean any;

    public OriginPolicy(List<String> allowedOrigins) {
        this.any = allowedOrigins.contains("*");
        this.allowed = allowedOrigins.stream().map(OriginPolicy::normalise).toList();
    }

    public boolean allows(HttpServerRequest request) {
        String origin = request.getHeader("Origin");
        if (origin == null || any) {
            return true;
        }
        String normalised = normalise(origin);
        if (allowed.contains(normalised)) {
            return true;
        }
        String host = request.getHeader("Host");
        return host != null && authority(normalised).equals(withoutDefaultPort(host.toLowerCase(Locale.ROOT)));
    }

    private static String normalise(String origin) {
        String lower = origin.trim().toLowerCase(Locale.ROOT);
        return lower.endsWith("/") ? lower.substring(0, lower.length() - 1) : lower;
    }

    private static String authority(String origin) {
        try {
            String authority = URI.create(origin).getRawAuthority();
            return authority == null ? "" : withoutDefaultPort(authority);
        } catch (IllegalArgumentException e) {
            return "";
        }
    }

    private static String withoutDefaultPort(String authority) {
        if (authority.endsWith(":80")) {
            return authority.substring(0, authority.length() - 3);
        }
        if (authority.endsWith(":443")) {
            return authority.substring(0, authority.length() - 4);
        }
        return authority;
    }
}
