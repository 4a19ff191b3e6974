package org.farmgate.node.signin;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.Cookie;
import io.vertx.core.http.CookieSameSite;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.oauth2.OAuth2Auth;
import io.vertx.ext.auth.oauth2.OAuth2AuthorizationURL;
import io.vertx.ext.auth.oauth2.OAuth2FlowType;
import io.vertx.ext.auth.oauth2.OAuth2Options;
import io.vertx.ext.auth.oauth2.Oauth2Credentials;
import io.vertx.ext.auth.oauth2.providers.OpenIDConnectAuth;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.farmgate.durable.AuditEvent;
import org.farmgate.model.Role;
import org.farmgate.node.accountability.AuditTrail;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.LoginSessions;
import org.farmgate.node.auth.Secrets;
import org.farmgate.node.config.OidcSettings;
import org.farmgate.node.http.ClientAddresses;
import org.farmgate.node.http.Pages;
import org.farmgate.node.people.People;
import org.farmgate.node.people.Standing;
import org.farmgate.router.store.SharedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sign-in with OpenID Connect: the authorization code flow with PKCE, {@code state} and {@code nonce}, on Vert.x's
 * own {@code vertx-auth-oauth2} (discovery, the code exchange, the ID token's signature against the provider's JWKS,
 * its issuer and audience). The pending sign-in is a cluster record under the hash of its {@code state}, so the
 * provider may send the person back to any node; it is taken once, so a replayed callback (the same code, the same
 * state) finds nothing. The node checks the ID token's expiry by its own clock and its nonce itself, since the
 * library does not.
 *
 * <p>A person's role comes from {@link RoleMapping}, with what an admin decided of them ({@link People}, read from
 * the cluster, never waiting on the database); one with no role, or disabled, is refused with a page that says so. A
 * signed-in person gets a login ({@link LoginSessions}) in an HttpOnly, SameSite=Lax cookie, Secure over TLS.
 * Signing out ends the login on every node and sends the person to the provider's end-session endpoint
 * (RP-initiated logout).
 */
public final class OidcSignIn {

    private static final Logger LOG = LoggerFactory.getLogger(OidcSignIn.class);
    public static final Duration PENDING_LIFETIME = Duration.ofMinutes(10);
    /** The cookie that ties a pending sign-in to the browser that started it. */
    static final String BROWSER_COOKIE = "farmgate_signin";
    private static final Duration KEY_REFRESH = Duration.ofMinutes(5);

    private final Vertx vertx;
    private final OidcSettings settings;
    private final SharedMap<String, PendingLogin> pending;
    private final LoginSessions logins;
    private final RoleMapping roles;
    private final Clock clock;
    private final OAuth2Options options;
    private final PendingBudget budget;
    private Future<OAuth2Auth> provider;
    private final AuditTrail audit;
    private final ClientAddresses addresses;
    private final People people;

    public OidcSignIn(Vertx vertx, OidcSettings settings, SharedMap<String, PendingLogin> pending,
            LoginSessions logins, Clock clock, AuditTrail audit, ClientAddresses addresses, People people) {
        this.people = people;
        this.audit = audit;
        this.addresses = addresses;
        this.vertx = vertx;
        this.settings = settings;
        this.pending = pending;
        this.logins = logins;
        this.roles = new RoleMapping(settings);
        this.clock = clock;
        this.budget = new PendingBudget(vertx, settings.maxPending(), PENDING_LIFETIME);
        this.options = new OAuth2Options().setSite(settings.issuer()).setClientId(settings.clientId())
                .setClientSecret(settings.clientSecret());
    }

    public void mount(Router router) {
        router.get("/auth/login").handler(this::login);
        router.get(OidcSettings.CALLBACK_PATH).handler(this::callback);
        router.post("/auth/logout").handler(this::logout);
    }

    /**
     * The provider, discovered at first use and kept; a failed discovery (the provider down) is tried again at the
     * next sign-in rather than failing the node's start. Its keys are fetched again every few minutes and whenever
     * a token names a key it does not know (the provider rotated its keys).
     */
    private synchronized Future<OAuth2Auth> provider() {
        if (provider == null || provider.failed()) {
            provider = OpenIDConnectAuth.discover(vertx, options).onSuccess(auth -> {
                auth.missingKeyHandler(kid -> {
                    LOG.info("the identity provider signed with key {}, unknown here: fetching its keys", kid);
                    auth.jWKSet();
                });
                vertx.setPeriodic(KEY_REFRESH.toMillis(), id -> auth.jWKSet());
            }).onFailure(error -> LOG.warn("OpenID discovery at {} failed: {}", settings.issuer(),
                    error.getMessage()));
        }
        return provider;
    }

    private void login(RoutingContext ctx) {
        if (!budget.take()) {
            page(ctx, 503, "Too many sign-ins at once", "This gateway node has started " + budget.max()
                    + " sign-ins in the last " + PENDING_LIFETIME.toMinutes() + " minutes (GW_OIDC_MAX_PENDING). "
                    + "Try again in a few minutes.");
            return;
        }
        String returnTo = localPath(ctx.request().getParam("return"));
        String state = Secrets.newSecret("");
        String verifier = Secrets.newSecret("");
        String nonce = Secrets.newSecret("");
        String browser = Secrets.newSecret("");
        provider().compose(auth -> await(pending.set(Secrets.sha256Hex(state), new PendingLogin(verifier, nonce,
                        returnTo, clock.instant(), Secrets.sha256Hex(browser)), PENDING_LIFETIME))
                .map(ignored -> auth.authorizeURL(
                                new OAuth2AuthorizationURL().setScopes(settings.scopes()).setState(state)
                                        // Vert.x 5.0.7 leaves redirectUri and codeChallenge out of the URL it
                                        // builds: they go as parameters of their own.
                                        .setAdditionalParameters(Map.of("nonce", nonce, "redirect_uri",
                                                settings.callbackUrl(), "code_challenge", challenge(verifier),
                                                "code_challenge_method", "S256")))))
                .onSuccess(url -> ctx.response().addCookie(browserCookie(browser, PENDING_LIFETIME))
                        .setStatusCode(302).putHeader("Location", url).putHeader("Cache-Control", "no-store").end())
                .onFailure(error -> page(ctx, 503, "The identity provider cannot be reached",
                        "Signing in needs " + settings.issuer() + ", which did not answer: " + error.getMessage()
                                + ". Try again in a moment."));
    }

    private void callback(RoutingContext ctx) {
        String error = ctx.request().getParam("error");
        String state = ctx.request().getParam("state");
        String code = ctx.request().getParam("code");
        if (state == null || state.isEmpty()) {
            page(ctx, 400, "This is not a sign-in", "The identity provider's answer had no state.");
            return;
        }
        Cookie browser = ctx.request().getCookie(BROWSER_COOKIE);
        ctx.response().addCookie(browserCookie("", Duration.ZERO)); // one answer per start, whatever it is
        // Taken at once, even when the provider reports an error: a state is good for one answer only.
        await(pending.remove(Secrets.sha256Hex(state))).onFailure(ctx::fail).onSuccess(flow -> {
            if (flow == null || Duration.between(flow.startedAt(), clock.instant()).compareTo(PENDING_LIFETIME) > 0) {
                page(ctx, 400, "This sign-in has expired or was already used",
                        "Each sign-in can be completed once, within " + PENDING_LIFETIME.toMinutes()
                                + " minutes. Sign in again.");
                return;
            }
            if (browser == null || !Secrets.constantTimeEquals(flow.browserHash(),
                    Secrets.sha256Hex(browser.getValue()))) {
                // Login CSRF (RFC 9700, 4.7): someone else's sign-in, its callback opened in this browser, would
                // sign this person into that account, and what they then type into sessions would be its owner's.
                LOG.warn("a sign-in's callback came from another browser than the one that started it: refused");
                page(ctx, 400, "This sign-in was started in another browser",
                        "A sign-in completes only in the browser that started it. If you clicked a link to this "
                                + "page, do not trust it; sign in again from the gateway's own page.");
                return;
            }
            if (error != null || code == null) {
                page(ctx, 401, "The identity provider did not sign you in", error == null ? "It sent no code."
                        : error + ": " + Optional.ofNullable(ctx.request().getParam("error_description")).orElse(""));
                return;
            }
            provider().compose(auth -> auth.authenticate(new Oauth2Credentials().setFlow(OAuth2FlowType.AUTH_CODE)
                            .setCode(code).setRedirectUri(settings.callbackUrl())
                            .setCodeVerifier(flow.codeVerifier())))
                    .onFailure(failure -> {
                        LOG.info("a sign-in's code exchange failed: {}", failure.getMessage());
                        refused(ctx, null, "the provider refused the code: " + failure.getMessage());
                        page(ctx, 401, "The identity provider did not confirm this sign-in",
                                "The sign-in code was refused (" + failure.getMessage() + "). Sign in again.");
                    })
                    .onSuccess(user -> admit(ctx, user, flow));
        });
    }

    private void admit(RoutingContext ctx, User user, PendingLogin flow) {
        JsonObject claims = user.attributes().getJsonObject("idToken");
        String refusal = IdTokenRules.refusal(claims, settings.issuer(), settings.clientId(), flow.nonce(),
                clock.instant());
        if (refusal != null) {
            LOG.warn("a sign-in was refused: {}", refusal);
            refused(ctx, null, refusal);
            page(ctx, 401, "The sign-in could not be verified", refusal + ". Sign in again.");
            return;
        }
        String subject = claims.getString("sub");
        String name = claims.getString("preferred_username", claims.getString("name", subject));
        String personId = Identity.PERSON_PREFIX + subject;
        AuditTrail.Actor actor = new AuditTrail.Actor(personId, name, null, addresses.of(ctx.request()));
        await(people.standing(personId)).compose(standing -> await(people.mappedRoles())
                        .map(runtime -> new Decision(standing, roles.roleOf(claims, runtime, standing))))
                .onFailure(ctx::fail).onSuccess(decision -> {
                    if (decision.standing() != null && decision.standing().disabled()) {
                        LOG.info("sign-in of {} ({}) refused: disabled by an admin", name, subject);
                        refused(ctx, actor, "disabled by an admin");
                        page(ctx, 403, "Your access to farmgate is disabled", "You are signed in at the identity "
                                + "provider as " + name + ", but an administrator of this gateway has disabled "
                                + "your access. Ask them to enable it again.");
                    } else if (decision.role().isEmpty()) {
                        LOG.info("sign-in of {} ({}) refused: no group of theirs maps to a role", name, subject);
                        refused(ctx, actor, "no group of theirs maps to a role");
                        page(ctx, 403, "You have no access to farmgate", "You are signed in at the identity provider "
                                + "as " + name + ", but none of your groups gives access to this gateway. Ask your "
                                + "administrator to add you to one that does.");
                    } else {
                        start(ctx, Identity.person(subject, name, claims.getString("email"), decision.role().get(),
                                roles.groupsOf(claims)), flow);
                    }
                });
    }

    /** What the cluster knows of a person at their sign-in, and the role it gives them. */
    private record Decision(Standing standing, Optional<Role> role) {
    }

    private void start(RoutingContext ctx, Identity person, PendingLogin flow) {
        await(logins.start(person)).onFailure(ctx::fail).onSuccess(secret -> {
            LOG.info("{} signed in: id={} email={} role={} groups={}", person.name(), person.id(), person.email(),
                    person.role().wireName(), person.groups());
            people.signedIn(person);
            audit.record(AuditTrail.Actor.of(person, addresses.of(ctx.request())), "signin", person.id(),
                    AuditEvent.SUCCESS, "groups: " + String.join(", ", person.groups()));
            ctx.response().addCookie(cookie(secret, settings.absolute()));
            ctx.response().setStatusCode(302).putHeader("Location", flow.returnTo())
                    .putHeader("Cache-Control", "no-store").end();
        });
    }

    /**
     * Ends the login on every node and answers where to go next: the provider's end-session endpoint, so that the
     * person is signed out there too, and comes back to the pages.
     */
    private void logout(RoutingContext ctx) {
        Cookie cookie = ctx.request().getCookie(LoginSessions.COOKIE);
        String secret = cookie == null ? null : cookie.getValue();
        await(logins.find(secret)).onSuccess(login -> login.ifPresent(found -> audit.record(AuditTrail.Actor.of(
                found.identity(), addresses.of(ctx.request())), "signout", found.identity().id(), AuditEvent.SUCCESS,
                null)));
        await(logins.end(secret)).compose(ignored -> provider().map(auth -> options.getLogoutPath())
                        .recover(unreachable -> Future.succeededFuture(null)))
                .onFailure(ctx::fail).onSuccess(endpoint -> {
                    ctx.response().addCookie(cookie("", Duration.ZERO));
                    String next = endpoint == null ? "/" : endpoint + "?client_id=" + encode(settings.clientId())
                            + "&post_logout_redirect_uri=" + encode(settings.redirectBase() + "/");
                    ctx.response().putHeader("Content-Type", "application/json").putHeader("Cache-Control",
                            "no-store").end(new JsonObject().put("logout_url", next).encode());
                });
    }

    private void refused(RoutingContext ctx, AuditTrail.Actor who, String why) {
        audit.record(who != null ? who : AuditTrail.Actor.anonymous(addresses.of(ctx.request())), "signin", null,
                AuditEvent.REFUSED, why);
    }

    /**
     * The value that ties a sign-in to the browser that started it, sent back to the callback only: Lax, since the
     * provider's redirect to the callback is a top-level cross-site GET.
     */
    private Cookie browserCookie(String value, Duration maxAge) {
        return Cookie.cookie(BROWSER_COOKIE, value).setPath(OidcSettings.CALLBACK_PATH).setHttpOnly(true)
                .setSecure(settings.secureCookies()).setSameSite(CookieSameSite.LAX).setMaxAge(maxAge.toSeconds());
    }

    private Cookie cookie(String value, Duration maxAge) {
        return Cookie.cookie(LoginSessions.COOKIE, value).setPath("/").setHttpOnly(true)
                .setSecure(settings.secureCookies()).setSameSite(CookieSameSite.LAX).setMaxAge(maxAge.toSeconds());
    }

    /** Only a path of this site: never another site's address, which would make sign-in an open redirect. */
    static String localPath(String asked) {
        if (asked == null || !asked.startsWith("/") || asked.startsWith("//") || asked.contains("\\")
                || asked.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
            return "/";
        }
        return asked;
    }

    /** PKCE's S256: the verifier's SHA-256 in base64url (the verifier is hex, so its UTF-8 is its ASCII). */
    private static String challenge(String verifier) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(Secrets.sha256(verifier));
    }

    private static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8);
    }

    private static void page(RoutingContext ctx, int status, String title, String text) {
        Pages.show(ctx, status, title, text);
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }

}
