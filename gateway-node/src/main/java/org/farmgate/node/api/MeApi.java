package org.farmgate.node.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.util.LinkedHashMap;
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
 * people sign in here, as rustguac answers it, and whether there is an address book ({@code /api/auth/status}); a
 * person's own API tokens, never above their role; and an admin's way to end a person's logins on every node.
 */
public final class MeApi {

    private final Vertx vertx;
    private final boolean signInEnabled;
    private final boolean addressBook;
    private final String banner;
    private final TokenService tokens;
    private final LoginSessions logins;

    public MeApi(Vertx vertx, boolean signInEnabled, boolean addressBook, String banner, TokenService tokens,
            LoginSessions logins) {
        this.banner = banner;
        this.vertx = vertx;
        this.signInEnabled = signInEnabled;
        this.addressBook = addressBook;
        this.tokens = tokens;
        this.logins = logins;
    }

    public void mount(Router router, Authenticator auth) {
        router.get("/api/auth/status").handler(ctx -> {
            Map<String, Object> status = new LinkedHashMap<>();
            status.put("oidc_enabled", signInEnabled);
            status.put("site_title", "farmgate");
            status.put("addressbook", addressBook);
            status.put("banner", banner);
            Responses.json(ctx, 200, status);
        });
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

    /** What a person asks for: a name, and optionally a role (at most theirs) and an expiry. */
    record PersonalToken(@JsonProperty("name") String name, @JsonProperty("role") Role role,
            @JsonProperty("expires_at") Instant expiresAt) {
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
        PersonalToken asked = TokensApi.readBody(ctx.body().asString(), PersonalToken.class);
        if (asked.name() == null) {
            throw new InvalidRequestException("field 'name' is required");
        }
        Role role = asked.role() == null ? who.role() : asked.role();
        if (!who.role().atLeast(role)) {
            throw new ForbiddenException("a personal token has at most your own role (" + who.role().wireName()
                    + ")");
        }
        String full = who.name().replaceAll("[^A-Za-z0-9._@-]", "_") + "." + asked.name();
        future(tokens.create(full, role, who.groups(), asked.expiresAt(), who.name(), who.id())).onFailure(ctx::fail)
                .onSuccess(issued -> {
                    AuditedCalls.target(ctx, issued.record().name());
                    Responses.json(ctx, 201, TokensApi.issued(issued));
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
