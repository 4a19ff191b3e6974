package org.farmgate.node.api;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClosedException;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import org.farmgate.error.Failures;
import org.farmgate.error.GatewayException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.OverrunException;
import org.farmgate.node.http.Responses;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The HTTP surface: body limits, JSON errors for every failure, and each API's routes. */
public final class ApiRouter {

    private static final Logger LOG = LoggerFactory.getLogger(ApiRouter.class);

    private ApiRouter() {
    }

    public static Router create(Vertx vertx, int maxBodyBytes) {
        Router router = Router.router(vertx);
        router.route("/api/*").handler(BodyHandler.create(false).setBodyLimit(maxBodyBytes));
        router.route().failureHandler(ctx -> renderFailure(ctx, maxBodyBytes));
        router.errorHandler(404, ctx -> Responses.error(ctx, new NotFoundException("no such resource: "
                + ctx.request().method() + " " + ctx.request().path())));
        router.errorHandler(405, ctx -> Responses.error(ctx, 405, "method " + ctx.request().method()
                + " is not allowed on " + ctx.request().path()));
        return router;
    }

    private static void renderFailure(RoutingContext ctx, int maxBodyBytes) {
        Throwable failure = Failures.cause(ctx.failure());
        if (failure instanceof GatewayException known) {
            Responses.error(ctx, known);
            return;
        }
        if (failure instanceof HttpClosedException) { // the client went (or was cut) before its body was in
            LOG.debug("{} {}: the connection closed before the request was read", ctx.request().method(),
                    ctx.request().path());
            return;
        }
        int status = ctx.statusCode();
        if (status == 413) {
            Responses.error(ctx, new OverrunException("request body is larger than " + maxBodyBytes + " bytes"));
        } else if (status >= 400 && status < 500) {
            Responses.error(ctx, status, "bad request");
        } else {
            LOG.error("unexpected failure on {} {}", ctx.request().method(), ctx.request().path(), failure);
            Responses.error(ctx, 500, "internal error");
        }
    }
}
