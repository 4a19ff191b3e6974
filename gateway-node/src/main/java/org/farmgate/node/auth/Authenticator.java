package org.farmgate.node.auth;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.UnauthorizedException;
import org.farmgate.model.Role;

/**
 * Reads the caller's token from {@code Authorization: Bearer} or {@code X-API-Key} and checks roles. The identity
 * rides on the routing context for the handlers after it.
 */
public final class Authenticator {

    private static final String IDENTITY = "farmgate.identity";
    private static final String CREDENTIAL = "farmgate.credential";

    private final Vertx vertx;
    private final TokenService tokens;

    public Authenticator(Vertx vertx, TokenService tokens) {
        this.vertx = vertx;
        this.tokens = tokens;
    }

    /** The identity behind the request's token, if any. */
    public Future<Optional<Identity>> identify(HttpServerRequest request) {
        return Future.fromCompletionStage(tokens.authenticate(presentedToken(request)), vertx.getOrCreateContext());
    }

    /** A route handler that lets through callers with at least {@code role}. */
    public Handler<RoutingContext> require(Role role) {
        return ctx -> {
            Identity known = ctx.get(IDENTITY);
            if (known != null) {
                admit(ctx, known, role);
                return;
            }
            if (presentedToken(ctx.request()) == null) {
                throw new UnauthorizedException("missing API token: send 'Authorization: Bearer <token>' or "
                        + "'X-API-Key: <token>'");
            }
            identify(ctx.request()).onFailure(ctx::fail).onSuccess(identity -> {
                if (identity.isEmpty()) {
                    ctx.fail(new UnauthorizedException("invalid or expired API token"));
                    return;
                }
                ctx.put(IDENTITY, identity.get());
                ctx.put(CREDENTIAL, Secrets.sha256Hex(presentedToken(ctx.request())));
                admit(ctx, identity.get(), role);
            });
        };
    }

    private static void admit(RoutingContext ctx, Identity identity, Role role) {
        if (!identity.role().atLeast(role)) {
            ctx.fail(new ForbiddenException("this needs the " + role.wireName() + " role; token '" + identity.name()
                    + "' has " + identity.role().wireName()));
            return;
        }
        ctx.next();
    }

    public static Identity identity(RoutingContext ctx) {
        return ctx.get(IDENTITY);
    }

    /** The hash of the token that proved the caller's identity: what a ticket checks again when redeemed. */
    public static String credential(RoutingContext ctx) {
        return ctx.get(CREDENTIAL);
    }

    private static String presentedToken(HttpServerRequest request) {
        String authorization = request.getHeader("Authorization");
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String token = authorization.substring(7).trim();
            return token.isEmpty() ? null : token;
        }
        String apiKey = request.getHeader("X-API-Key");
        return apiKey == null || apiKey.isBlank() ? null : apiKey.trim();
    }
}
