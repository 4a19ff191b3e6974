package org.farmgate.node.signin;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import org.farmgate.node.auth.Secrets;

/**
 * What an ID token must show before anyone is let in (OpenID Connect Core 3.1.3.7), checked here whatever the
 * library checked: that it verified at all (the library drops an ID token whose signature, issuer or audience fails,
 * silently), that it comes from the configured issuer, names this client, has not expired by this node's clock, was
 * not issued in the future, and carries the nonce this sign-in sent.
 */
final class IdTokenRules {

    /** Clocks of the provider and the node may differ this much. */
    static final long SKEW_SECONDS = 60;

    private IdTokenRules() {
    }

    /** Why the token is refused, or null when it passes. */
    static String refusal(JsonObject claims, String issuer, String clientId, String nonce, Instant now) {
        if (claims == null) {
            return "the identity provider's ID token did not verify (signature, issuer or audience)";
        }
        if (!issuer.equals(claims.getString("iss"))) {
            return "the ID token comes from another issuer";
        }
        Object audience = claims.getValue("aud");
        boolean ours = audience instanceof String one ? one.equals(clientId)
                : audience instanceof JsonArray many && many.contains(clientId);
        if (!ours) {
            return "the ID token is for another client";
        }
        Long expires = number(claims, "exp");
        if (expires == null || now.getEpochSecond() >= expires + SKEW_SECONDS) {
            return "the ID token has expired";
        }
        Long issued = number(claims, "iat");
        if (issued == null || issued > now.getEpochSecond() + SKEW_SECONDS) {
            return "the ID token was issued in the future";
        }
        String sent = claims.getString("nonce");
        if (sent == null || !Secrets.constantTimeEquals(sent, nonce)) {
            return "the ID token does not belong to this sign-in (nonce)";
        }
        if (claims.getString("sub") == null || claims.getString("sub").isEmpty()) {
            return "the ID token names no subject";
        }
        return null;
    }

    private static Long number(JsonObject claims, String name) {
        Object value = claims.getValue(name);
        return value instanceof Number n ? n.longValue() : null;
    }
}
