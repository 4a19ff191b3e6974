package org.farmgate.node.api;

import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.HashMap;
import java.util.Map;
import org.farmgate.error.GatewayException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.http.ClientAddresses;
import org.farmgate.node.http.Responses;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.recording.RecordingPolicy;
import org.farmgate.node.session.Origin;
import org.farmgate.node.session.SessionCreation;
import org.farmgate.node.session.SessionService;

/** {@code /api/sessions}: create (poweruser), list, get and delete (the creator or an admin). */
public final class SessionsApi {

    /** Names the node that holds a session; scoped to that session's WebSocket path. */
    public static final String ROUTE_COOKIE = "farmgate_node";

    private final SessionCreation creation;
    private final SessionService sessions;
    private final NodeMetrics metrics;
    private final long routeCookieSeconds;
    private final SessionRequestParser parser = new SessionRequestParser();
    private final ClientAddresses addresses;
    private final String banner;

    /** @param banner the site's notice a person accepts before each session, null for none */
    private final RecordingPolicy recordingPolicy;

    public SessionsApi(SessionCreation creation, SessionService sessions, NodeMetrics metrics,
            long routeCookieSeconds, ClientAddresses addresses, String banner, RecordingPolicy recordingPolicy) {
        this.banner = banner;
        this.recordingPolicy = recordingPolicy;
        this.addresses = addresses;
        this.creation = creation;
        this.sessions = sessions;
        this.metrics = metrics;
        this.routeCookieSeconds = routeCookieSeconds;
    }

    public void mount(Router router, Authenticator auth) {
        router.post("/api/sessions").handler(auth.require(Role.POWERUSER)).handler(this::create);
        router.get("/api/sessions").handler(auth.require(Role.VIEWER)).handler(this::list);
        router.get("/api/sessions/:id").handler(auth.require(Role.VIEWER)).handler(this::get);
        router.get("/api/sessions/:id/banner").handler(auth.require(Role.VIEWER)).handler(this::banner);
        router.post("/api/sessions/:id/banner/accept").handler(auth.require(Role.VIEWER))
                .handler(this::acceptBanner);
        router.delete("/api/sessions/:id").handler(auth.require(Role.VIEWER)).handler(this::delete);
    }

    private void create(RoutingContext ctx) {
        createAdHoc(ctx, ctx.body().asString()).onFailure(ctx::fail)
                .onSuccess(info -> Responses.json(ctx, 201, info));
    }

    /** An ad hoc session from a JSON body, for the caller: what this route and a quick-connect link make. */
    Future<SessionInfo> createAdHoc(RoutingContext ctx, String body) {
        Future<SessionInfo> created;
        try {
            Identity who = Authenticator.identity(ctx);
            boolean recorded = recordingPolicy.adHoc(who, SessionRequestParser.recordAsked(body));
            created = creation.create(who, parser.parse(body),
                    Origin.adHoc(addresses.of(ctx.request())).recorded(recorded));
        } catch (GatewayException e) {
            created = Future.failedFuture(e);
        }
        return created.onComplete(result -> metrics.created(SessionCreation.outcome(result.cause())))
                .onSuccess(info -> {
                    AuditedCalls.target(ctx, info.sessionId());
                    routeHint(ctx, info, routeCookieSeconds);
                });
    }

    /** The routing hint: a load balancer that reads it sends this session's WebSocket to its node. */
    static void routeHint(RoutingContext ctx, SessionInfo info, long seconds) {
        ctx.response().putHeader("Set-Cookie", ROUTE_COOKIE + "=" + info.nodeId() + "; Path=" + info.wsUrl()
                + "; Max-Age=" + seconds + "; HttpOnly; SameSite=Lax");
    }

    private void list(RoutingContext ctx) {
        String all = ctx.request().getParam("all");
        if (all != null && !all.equals("true") && !all.equals("false")) {
            throw new InvalidRequestException("query parameter 'all' must be true or false");
        }
        sessions.list(Authenticator.identity(ctx), "true".equals(all))
                .onSuccess(list -> Responses.json(ctx, 200, list)).onFailure(ctx::fail);
    }

    private void get(RoutingContext ctx) {
        visible(ctx).onFailure(ctx::fail).onSuccess(info -> Responses.json(ctx, 200, info));
    }

    /** The session, where the caller may see it (theirs, or any for an admin); a 404 otherwise. */
    private Future<SessionInfo> visible(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        return sessions.get(Authenticator.identity(ctx), id).map(info -> info.orElseThrow(
                () -> new NotFoundException("no session " + id)));
    }

    /** rustguac's: the notice to accept before the session starts, {@code {"banner": null}} when there is none. */
    private void banner(RoutingContext ctx) {
        visible(ctx).onFailure(ctx::fail).onSuccess(info -> {
            Map<String, Object> body = new HashMap<>();
            body.put("banner", banner);
            Responses.json(ctx, 200, body);
        });
    }

    /** The person accepted the notice, before this session: an audit event, so that it can be shown later. */
    private void acceptBanner(RoutingContext ctx) {
        visible(ctx).onFailure(ctx::fail).onSuccess(info -> Responses.noContent(ctx));
    }

    private void delete(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        sessions.delete(Authenticator.identity(ctx), id).onFailure(ctx::fail).onSuccess(deleted -> {
            if (deleted) {
                Responses.noContent(ctx);
            } else {
                ctx.fail(new NotFoundException("no session " + id));
            }
        });
    }
}
