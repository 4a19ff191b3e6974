package org.farmgate.node.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.Failures;
import org.farmgate.error.GatewayException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.UnauthorizedException;
import org.farmgate.model.Json;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.http.HttpStatuses;
import org.farmgate.node.http.Pages;

/**
 * rustguac's quick connect, {@code GET /api/connect?...}: a link from another tool (an inventory, NetBox) opens a
 * console in one click. Ad hoc ({@code protocol}, {@code hostname}, {@code port}, {@code username}; poweruser) or an
 * address-book entry ({@code scope}, {@code folder}, {@code entry}; operator), made as {@code POST /api/sessions} and
 * the entry's connect make them, then 307 to {@code /client/{id}}, which opens it in the client page. Opened from a
 * browser, its answers are pages, not JSON; someone not signed in is sent to sign in and back.
 *
 * <p>A GET that makes a session is what a cross-site request forgery would use: a page elsewhere links here, and the
 * person's login cookie comes along (SameSite=Lax lets a top-level GET carry it). So a call made with the cookie
 * makes the session only when the browser says the request comes from this site or from the person themselves
 * ({@code Sec-Fetch-Site: same-origin} or {@code none}: typed, bookmarked); a link from another site gets a page
 * that names the target and asks for one more click, a same-site one. A call with a token (a header no other site
 * can make a browser send) is made at once. Credentials never travel in the URL: {@code password} and the like are
 * refused, and so is a token in the query ({@code key}, which rustguac took).
 */
public final class QuickConnectApi {

    private static final Set<String> AD_HOC = Set.of("protocol", "hostname", "port", "username", "width", "height",
            "dpi");
    private static final Set<String> ENTRY = Set.of("scope", "folder", "entry", "width", "height", "dpi");
    private static final Set<String> SECRETS = Set.of("password", "private_key", "passphrase", "key", "token",
            "ticket");
    private static final Pattern SESSION_ID = Pattern.compile("[A-Za-z0-9-]{1,64}");

    private final SessionsApi sessions;
    private final AddressBookApi addressBook;
    private final boolean signInEnabled;

    /** @param addressBook null on a node without an address book */
    public QuickConnectApi(SessionsApi sessions, AddressBookApi addressBook, boolean signInEnabled) {
        this.sessions = sessions;
        this.addressBook = addressBook;
        this.signInEnabled = signInEnabled;
    }

    public void mount(Router router, Authenticator auth) {
        // Before the router's own failure handler (which answers JSON), after the audit's (order -1 too, mounted
        // first): a person who opened a link gets a page.
        router.get("/api/connect").order(-1).handler(auth.require(Role.VIEWER)).handler(this::connect)
                .failureHandler(this::failed);
        router.get("/client/:id").handler(this::client);
    }

    private void connect(RoutingContext ctx) {
        MultiMap params = ctx.request().params();
        boolean entry = params.contains("scope") || params.contains("folder") || params.contains("entry");
        checkParameters(params, entry ? ENTRY : AD_HOC);
        if (Authenticator.login(ctx) != null && !fromThisSite(ctx)) {
            confirm(ctx, entry);
            return;
        }
        Role needed = entry ? Role.OPERATOR : Role.POWERUSER;
        if (!Authenticator.identity(ctx).role().atLeast(needed)) {
            throw new ForbiddenException("opening " + (entry ? "an address-book entry" : "a machine by its address")
                    + " needs the " + needed.wireName() + " role");
        }
        Future<SessionInfo> made;
        try {
            made = entry ? fromEntry(ctx, params) : sessions.createAdHoc(ctx, adHocBody(params));
        } catch (GatewayException e) {
            made = Future.failedFuture(e);
        }
        made.onFailure(ctx::fail).onSuccess(info -> ctx.response().setStatusCode(307)
                .putHeader("Location", "/client/" + info.sessionId()).putHeader("Cache-Control", "no-store").end());
    }

    private Future<SessionInfo> fromEntry(RoutingContext ctx, MultiMap params) {
        if (addressBook == null) {
            throw new NotFoundException("this gateway has no address book");
        }
        for (String needed : List.of("scope", "folder", "entry")) {
            if (params.get(needed) == null) {
                throw new InvalidRequestException("query parameter '" + needed + "' is required to open an entry "
                        + "(scope, folder and entry name it)");
            }
        }
        ObjectNode body = Json.mapper().createObjectNode();
        for (String size : List.of("width", "height", "dpi")) {
            if (params.get(size) != null) {
                body.put(size, number(params, size));
            }
        }
        return addressBook.connectEntry(ctx, params.get("scope"), params.get("folder"), params.get("entry"), body);
    }

    /** The body {@code POST /api/sessions} would get: the same checks, the same errors. */
    private static String adHocBody(MultiMap params) {
        if (params.get("hostname") == null) {
            throw new InvalidRequestException("query parameter 'hostname' is required (or scope, folder and entry "
                    + "to open an address-book entry)");
        }
        ObjectNode body = Json.mapper().createObjectNode();
        body.put("session_type", params.get("protocol") == null ? "ssh" : params.get("protocol"));
        body.put("hostname", params.get("hostname"));
        if (params.get("username") != null) {
            body.put("username", params.get("username"));
        }
        for (String number : List.of("port", "width", "height", "dpi")) {
            if (params.get(number) != null) {
                body.put(number, number(params, number));
            }
        }
        return body.toString();
    }

    private static int number(MultiMap params, String name) {
        try {
            return Integer.parseInt(params.get(name));
        } catch (NumberFormatException e) {
            throw new InvalidRequestException("query parameter '" + name + "' must be a number");
        }
    }

    private static void checkParameters(MultiMap params, Set<String> known) {
        for (String name : params.names()) {
            if (SECRETS.contains(name)) {
                throw new InvalidRequestException("query parameter '" + name + "' is refused: credentials never "
                        + "travel in a link (they would stay in browser histories and logs); the session asks for "
                        + "them, or sign in");
            }
            if (!known.contains(name)) {
                throw new InvalidRequestException("unknown query parameter '" + name + "'; known: "
                        + String.join(", ", known.stream().sorted().toList()));
            }
            if (params.getAll(name).size() > 1) {
                throw new InvalidRequestException("query parameter '" + name + "' is given more than once");
            }
        }
    }

    /** What the browser says of where the request comes from (Fetch Metadata; every current browser sends it). */
    private static boolean fromThisSite(RoutingContext ctx) {
        String site = ctx.request().getHeader("Sec-Fetch-Site");
        return "same-origin".equals(site) || "none".equals(site);
    }

    /** One more click, on a link of this site: the request it makes is same-origin, and goes through. */
    private static void confirm(RoutingContext ctx, boolean entry) {
        MultiMap params = ctx.request().params();
        String what = entry ? "the entry " + params.get("scope") + "/" + params.get("folder") + "/" + params.get("entry")
                : (params.get("protocol") == null ? "ssh" : params.get("protocol")) + "://"
                        + (params.get("username") == null ? "" : params.get("username") + "@") + params.get("hostname")
                        + (params.get("port") == null ? "" : ":" + params.get("port"));
        String self = ctx.request().uri();
        AuditedCalls.nothingDone(ctx);
        Pages.show(ctx, 200, "Open a console to " + what + "?", "A link from another site asks to open a console "
                + "to " + what + " with your sign-in. Open it only if you meant to.", "<a class=\"button primary\" "
                + "id=\"open\" href=\"" + Pages.escape(self) + "\">Open</a> · <a href=\"/\">Cancel</a>");
    }

    /** {@code /client/{id}}: the client page, opening that session. */
    private void client(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        if (!SESSION_ID.matcher(id).matches()) {
            Pages.show(ctx, 404, "No such session", "'" + id + "' is not a session's id.");
            return;
        }
        ctx.response().setStatusCode(302).putHeader("Location", "/#connect=" + id).putHeader("Cache-Control",
                "no-store").end();
    }

    /** A person opened a link: a page, or the sign-in and back here. */
    private void failed(RoutingContext ctx) {
        Throwable failure = Failures.cause(ctx.failure());
        if (failure instanceof UnauthorizedException && signInEnabled) {
            ctx.response().setStatusCode(307).putHeader("Location", "/auth/login?return="
                    + URLEncoder.encode(ctx.request().uri(), StandardCharsets.UTF_8)).end();
            return;
        }
        if (failure instanceof GatewayException known) {
            Pages.show(ctx, HttpStatuses.of(known), "This link cannot be opened", known.getMessage(),
                    "<a href=\"/\">Back to the start</a>");
            return;
        }
        ctx.next();
    }
}
