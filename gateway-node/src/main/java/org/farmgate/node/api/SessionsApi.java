package org.farmgate.node.api;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.session.SessionService;

/** {@code /api/sessions}: create (poweruser), list, get and delete (the creator or an admin). */
public final class SessionsApi {

    private final SessionService sessions;
    private final SessionRequestParser parser = new SessionRequestParser();

    public SessionsApi(SessionService sessions) {
        this.sessions = sessions;
    }

    public void mount(Router router, Authenticator auth) {
        router.post("/api/sessions").handler(auth.require(Role.POWERUSER)).handler(this::create);
        router.get("/api/sessions").handler(auth.require(Role.VIEWER)).handler(this::list);
        router.get("/api/sessions/:id").handler(auth.require(Role.VIEWER)).handler(this::get);
        router.delete("/api/sessions/:id").handler(auth.require(Role.VIEWER)).handler(this::delete);
    }

    private void create(RoutingContext ctx) {
        Identity caller = Authenticator.identity(ctx);
        sessions.create(caller, parser.parse(ctx.body().asString()))
                .onSuccess(info -> Responses.json(ctx, 201, info))
                .onFailure(ctx::fail);
    }

    private void list(RoutingContext ctx) {
        String all = ctx.request().getParam("all");
        if (all != null && !all.equals("true") && !all.equals("false")) {
            throw ApiException.badRequest("query parameter 'all' must be true or false");
        }
        Responses.json(ctx, 200, sessions.list(Authenticator.identity(ctx), "true".equals(all)));
    }

    private void get(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        SessionInfo info = sessions.get(Authenticator.identity(ctx), id)
                .orElseThrow(() -> ApiException.notFound("no session " + id));
        Responses.json(ctx, 200, info);
    }

    private void delete(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        if (!sessions.delete(Authenticator.identity(ctx), id)) {
            throw ApiException.notFound("no session " + id);
        }
        Responses.noContent(ctx);
    }
}
