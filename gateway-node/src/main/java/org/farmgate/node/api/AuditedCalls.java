package org.farmgate.node.api;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.farmgate.durable.AuditEvent;
import org.farmgate.node.accountability.AuditTrail;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.http.ClientAddresses;

/**
 * Which API calls the audit log records, in one table: a call that changes who may do what or what exists (sessions,
 * shares, tokens, logins, people, group mappings, nodes, the address book), a recording watched, and every refusal
 * of a caller (401, 403). Each is written when its response is sent, with the caller, the call's target and how it
 * ended:
 * {@code success} (2xx), {@code refused} (401, 403) or {@code failed} (anything else, its status in the detail). A
 * handler that creates something names it with {@link #target}, since the path does not.
 */
public final class AuditedCalls {

    private static final String TARGET = "farmgate.audit.target";
    private static final String DETAIL = "farmgate.audit.detail";
    private static final String NOTHING_DONE = "farmgate.audit.nothing-done";

    private record Call(HttpMethod method, Pattern path, String action) {
    }

    /** By method: most API calls are reads, which none of these but two are, and need no pattern tried. */
    private static final Map<HttpMethod, List<Call>> CALLS = Stream.of(
            call(HttpMethod.POST, "/api/sessions", "session.create"),
            call(HttpMethod.GET, "/api/connect", "session.create"),
            call(HttpMethod.DELETE, "/api/sessions/([^/]+)", "session.delete"),
            call(HttpMethod.POST, "/api/sessions/([^/]+)/banner/accept", "session.banner_accept"),
            call(HttpMethod.POST, "/api/sessions/([^/]+)/shares", "share.create"),
            call(HttpMethod.DELETE, "/api/sessions/([^/]+/shares/[^/]+)", "share.revoke"),
            call(HttpMethod.POST, "/api/share-ticket", "share.redeem"),
            call(HttpMethod.POST, "/api/tokens", "token.create"),
            call(HttpMethod.DELETE, "/api/tokens/([^/]+)", "token.revoke"),
            call(HttpMethod.POST, "/api/me/tokens", "token.create_personal"),
            call(HttpMethod.PUT, "/api/me/credentials", "person.credentials_save"),
            call(HttpMethod.DELETE, "/api/me/credentials/([^/]+)", "person.credentials_delete"),
            call(HttpMethod.DELETE, "/api/people/([^/]+)/logins", "person.end_logins"),
            call(HttpMethod.POST, "/api/cluster/nodes/([^/]+)/drain", "node.drain"),
            call(HttpMethod.POST, "/api/cluster/nodes/([^/]+)/undrain", "node.undrain"),
            call(HttpMethod.POST, "/api/addressbook/folders/([^/]+/[^/]+/entries/[^/]+)/connect", "session.create"),
            call(HttpMethod.POST, "/api/addressbook/folders", "addressbook.folder_create"),
            call(HttpMethod.PUT, "/api/addressbook/folders/([^/]+/[^/]+)", "addressbook.folder_update"),
            call(HttpMethod.DELETE, "/api/addressbook/folders/([^/]+/[^/]+)", "addressbook.folder_delete"),
            call(HttpMethod.POST, "/api/addressbook/folders/([^/]+/[^/]+)/entries", "addressbook.entry_create"),
            call(HttpMethod.PUT, "/api/addressbook/folders/([^/]+/[^/]+/entries/[^/]+)", "addressbook.entry_update"),
            call(HttpMethod.DELETE, "/api/addressbook/folders/([^/]+/[^/]+/entries/[^/]+)",
                    "addressbook.entry_delete"),
            call(HttpMethod.PUT, "/api/users/([^/]+)/role", "person.role"),
            call(HttpMethod.POST, "/api/users/([^/]+)/disable", "person.disable"),
            call(HttpMethod.POST, "/api/users/([^/]+)/enable", "person.enable"),
            call(HttpMethod.DELETE, "/api/users/([^/]+)", "person.delete"),
            call(HttpMethod.POST, "/api/admin/group-mappings", "mapping.create"),
            call(HttpMethod.POST, "/api/ssh/probe-host-key", "ssh.host_key_probe"),
            call(HttpMethod.PUT, "/api/ssh/known-hosts", "ssh.host_key_pin"),
            call(HttpMethod.DELETE, "/api/ssh/known-hosts/([^/]+/[^/]+)", "ssh.host_key_forget"),
            call(HttpMethod.PUT, "/api/admin/group-mappings/([^/]+)", "mapping.update"),
            call(HttpMethod.DELETE, "/api/admin/group-mappings/([^/]+)", "mapping.delete"),
            call(HttpMethod.GET, "/api/audit/verify", "audit.verify"),
            call(HttpMethod.GET, "/api/recordings/([^/]+)", "recording.play"),
            call(HttpMethod.DELETE, "/api/recordings/([^/]+)", "recording.delete"))
            .collect(Collectors.groupingBy(Call::method));

    private final AuditTrail trail;
    private final ClientAddresses addresses;

    public AuditedCalls(AuditTrail trail, ClientAddresses addresses) {
        this.trail = trail;
        this.addresses = addresses;
    }

    /** Installs the recording on every API call; before every route, so that it sees every refusal. */
    public void mount(Router router) {
        router.route("/api/*").order(-1).handler(ctx -> {
            ctx.addEndHandler(ended -> recordEnd(ctx));
            ctx.next();
        });
    }

    /** The thing a call created, for its audit row (a new session's id, a new token's name). */
    public static void target(RoutingContext ctx, String target) {
        ctx.put(TARGET, target);
    }

    /** What a successful call changed, when its path does not say (the role given, the group mapped). */
    public static void detail(RoutingContext ctx, String detail) {
        ctx.put(DETAIL, detail);
    }

    /** The call, answered without doing what its route does (a page that asks to confirm): not an event. */
    public static void nothingDone(RoutingContext ctx) {
        ctx.put(NOTHING_DONE, true);
    }

    private void recordEnd(RoutingContext ctx) {
        if (ctx.get(NOTHING_DONE) != null) {
            return;
        }
        int status = ctx.response().getStatusCode();
        String path = ctx.normalizedPath();
        HttpMethod method = ctx.request().method();
        Call call = CALLS.getOrDefault(method, List.of()).stream().filter(c -> c.path().matcher(path).matches())
                .findFirst().orElse(null);
        boolean refused = status == 401 || status == 403;
        if (call == null && !refused) {
            return;
        }
        String target = ctx.get(TARGET);
        if (target == null && call != null) {
            Matcher matcher = call.path().matcher(path);
            target = matcher.matches() && matcher.groupCount() > 0 ? matcher.group(1) : null;
        }
        String action = call != null ? call.action() : status == 401 ? "auth" : "access";
        String outcome = status < 300 ? AuditEvent.SUCCESS : refused ? AuditEvent.REFUSED : AuditEvent.FAILED;
        trail.record(AuditTrail.Actor.of(Authenticator.identity(ctx), addresses.of(ctx.request())), action,
                target != null ? target : method + " " + path, outcome, status < 300 ? ctx.get(DETAIL) : "HTTP " + status);
    }

    private static Call call(HttpMethod method, String path, String action) {
        return new Call(method, Pattern.compile(path), action);
    }
}
