package org.farmgate.node.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.Role;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.Login;
import org.farmgate.node.auth.LoginSessions;
import org.farmgate.node.auth.TokenService;
import org.farmgate.node.http.Responses;

/**
 * Who the caller is, for the pages ({@code /api/me}, with the CSRF token a signed-in page must repeat); whether
 * people sign in here ({@code /api/auth/status}, as rustguac answers it); a person's own API tokens, never above
 * their role; and an admin's way to end a person's logins on every node.
 */
public final class MeApi {

    private static final List<String> TOKEN_FIELDS = List.of("name", "role", "expires_at");

    private final Vertx vertx;
    private final boolean signInEnabled;
    private final TokenService tokens;
    private final LoginSessions logins;

    public MeApi(Vertx vertx, boolean signInEnabled, TokenService tokens, LoginSessions logins) {
        this.vertx = vertx;
        this.signInEnabled = signInEnabled;
        this.tokens = tokens;
        this.logins = logins;
    }

    public void mount(Router router, Authenticator auth) {
        router.get("/api/auth/status").handler(ctx -> Responses.json(ctx, 200, Map.of("oidc_enabled", signInEnabled,
                "site_title", "farmgate")));
        router.get("/api/me").handler(auth.require(Role.VIEWER)).handler(this::me);
        router.post("/api/me/tokens").handler(auth.require(Role.VIEWER)).handler(this::personalToken);
        router.delete("/api/people/:id/logins").handler(auth.require(Role.ADMIN)).handler(this::endLogins);
    }

    private void me(RoutingContext ctx) {
        Identity who = Authenticator.identity(ctx);
        Login login = Authenticator.login(ctx);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", who.id());
        out.put("name", who.name());
        out.put("role", who.role());
        out.put("groups", who.groups());
        out.put("email", who.email());
        out.put("signed_in_with", login != null ? "oidc" : "token");
        if (login != null) {
            out.put("csrf_token", login.csrf());
            out.put("login_ends_at", login.endsAt());
        }
        Responses.json(ctx, 200, out);
    }

    /**
     * A signed-in person's own token, for scripts: named after them, with their groups, and at most their role.
     */
    private void personalToken(RoutingContext ctx) {
        Identity who = Authenticator.identity(ctx);
        if (Authenticator.login(ctx) == null) {
            throw new ForbiddenException("personal tokens are made by people signed in; an admin makes tokens "
                    + "for scripts at POST /api/tokens");
        }
        ObjectNode body = JsonBody.object(ctx.body().asString());
        JsonBody.onlyFields(body, TOKEN_FIELDS);
        JsonNode name = body.get("name");
        if (name == null || !name.isTextual()) {
            throw new InvalidRequestException("field 'name' is required");
        }
        Role role = who.role();
        JsonNode asked = body.get("role");
        if (asked != null && !asked.isNull()) {
            try {
                role = Role.parse(asked.asText());
            } catch (IllegalArgumentException e) {
                throw new InvalidRequestException("field 'role': " + e.getMessage());
            }
            if (!who.role().atLeast(role)) {
                throw new ForbiddenException("a personal token has at most your own role (" + who.role().wireName()
                        + ")");
            }
        }
        Instant expires = null;
        JsonNode expiresAt = body.get("expires_at");
        if (expiresAt != null && !expiresAt.isNull()) {
            try {
                expires = Instant.parse(expiresAt.asText());
            } catch (DateTimeParseException e) {
                throw new InvalidRequestException("field 'expires_at' must be a time such as 2027-01-31T12:00:00Z");
            }
        }
        String full = who.name().replaceAll("[^A-Za-z0-9._@-]", "_") + "." + name.asText();
        future(tokens.create(full, role, who.groups(), expires)).onFailure(ctx::fail).onSuccess(issued -> {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("name", issued.record().name());
            out.put("role", issued.record().role());
            out.put("groups", issued.record().groups());
            out.put("expires_at", issued.record().expiresAt());
            out.put("token", issued.token());
            Responses.json(ctx, 201, out);
        });
    }

    private void endLogins(RoutingContext ctx) {
        future(logins.endAll(ctx.pathParam("id"))).onFailure(ctx::fail)
                .onSuccess(ended -> Responses.json(ctx, 200, Map.of("ended", ended)));
    }

    private <T> Future<T> future(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
