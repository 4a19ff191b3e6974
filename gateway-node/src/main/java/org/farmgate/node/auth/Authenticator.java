package org.farmgate.node.auth;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import java.util.Set;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.UnauthorizedException;
import org.farmgate.model.Role;
import org.farmgate.node.async.Stages;

/**
 * Who is calling: an API token from {@code Authorization: Bearer} or {@code X-API-Key}, or a person's login cookie
 * (OpenID Connect sign-in). A call made with the cookie that changes anything must repeat the login's CSRF token in
 * {@code X-CSRF-Token}: the cookie's SameSite=Lax already keeps it off other sites' POSTs, and the token, which only
 * a page of this origin can read ({@code /api/me}), keeps it off everything else. The identity rides on the routing
 * context for the handlers after it.
 */
public final class Authenticator {

    private static final String IDENTITY = "farmgate.identity";
    private static final String CREDENTIAL = "farmgate.credential";
    private static final String LOGIN = "farmgate.login";
    public static final String CSRF_HEADER = "X-CSRF-Token";
    private static final Set<HttpMethod> SAFE = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.OPTIONS);

    private final Vertx vertx;
    private final TokenService tokens;
    private final LoginSessions logins;

    public Authenticator(Vertx vertx, TokenService tokens, LoginSessions logins) {
        this.vertx = vertx;
        this.tokens = tokens;
        this.logins = logins;
    }

    /** The identity behind the request's token or login cookie, if any. */
    public Future<Optional<Identity>> identify(HttpServerRequest request) {
        String token = presentedToken(request);
        if (token != null) {
            return await(tokens.authenticate(token));
        }
        return await(logins.find(loginSecret(request))).map(found -> found.map(Login::identity));
    }

    /** A route handler that lets through callers with at least {@code role}. */
    public Handler<RoutingContext> require(Role role) {
        return ctx -> {
            Identity known = ctx.get(IDENTITY);
            if (known != null) {
                admit(ctx, known, role);
                return;
            }
            String token = presentedToken(ctx.request());
            if (token != null) {
                await(tokens.authenticate(token)).onFailure(ctx::fail).onSuccess(identity -> {
                    if (identity.isEmpty()) {
                        ctx.fail(new UnauthorizedException("invalid or expired API token"));
                        return;
                    }
                    ctx.put(IDENTITY, identity.get());
                    ctx.put(CREDENTIAL, Secrets.sha256Hex(token));
                    admit(ctx, identity.get(), role);
                });
                return;
            }
            String secret = loginSecret(ctx.request());
            if (secret == null) {
                throw new UnauthorizedException("missing credentials: sign in, or send 'Authorization: Bearer "
                        + "<token>' or 'X-API-Key: <token>'");
            }
            await(logins.find(secret)).onFailure(ctx::fail).onSuccess(login -> {
                if (login.isEmpty()) {
                    ctx.fail(new UnauthorizedException("your sign-in has ended: sign in again"));
                    return;
                }
                if (!SAFE.contains(ctx.request().method()) && !csrfMatches(ctx.request(), login.get())) {
                    ctx.fail(new ForbiddenException("a change made with a sign-in cookie must carry its "
                            + CSRF_HEADER + " (from GET /api/me): refused as a cross-site request"));
                    return;
                }
                ctx.put(IDENTITY, login.get().identity());
                ctx.put(LOGIN, login.get());
                ctx.put(CREDENTIAL, LoginSessions.credentialOf(secret));
                admit(ctx, login.get().identity(), role);
            });
        };
    }

    private static boolean csrfMatches(HttpServerRequest request, Login login) {
        String sent = request.getHeader(CSRF_HEADER);
        return sent != null && Secrets.constantTimeEquals(sent, login.csrf());
    }

    private static String loginSecret(HttpServerRequest request) {
        Cookie cookie = request.getCookie(LoginSessions.COOKIE);
        return cookie == null || cookie.getValue().isEmpty() ? null : cookie.getValue();
    }

    /** The login behind the call, when the caller signed in rather than sent a token. */
    public static Login login(RoutingContext ctx) {
        return ctx.get(LOGIN);
    }

    private <T> Future<T> await(java.util.concurrent.CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }

    private static void admit(RoutingContext ctx, Identity identity, Role role) {
        if (!identity.role().atLeast(role)) {
            ctx.fail(new ForbiddenException("this needs the " + role.wireName() + " role; '" + identity.name()
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
