package org.farmgate.node.api;

import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.Role;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.session.SessionService;
import org.farmgate.node.thumbnail.Thumbnails;

/**
 * {@code GET /api/sessions/{id}/thumbnail}: a small JPEG of a running session's screen, for whoever may see the
 * session in the list (its owner, an admin); any node answers, the node holding the session makes it.
 */
public final class ThumbnailsApi {

    private final SessionService sessions;
    private final Thumbnails thumbnails;

    /** @param thumbnails null when thumbnails are off ({@code GW_THUMBNAIL_SECS=0}) */
    public ThumbnailsApi(SessionService sessions, Thumbnails thumbnails) {
        this.sessions = sessions;
        this.thumbnails = thumbnails;
    }

    public void mount(Router router, Authenticator auth) {
        router.get("/api/sessions/:id/thumbnail").handler(auth.require(Role.VIEWER)).handler(this::thumbnail);
    }

    private void thumbnail(RoutingContext ctx) {
        String id = ctx.pathParam("id");
        if (thumbnails == null) {
            throw new NotFoundException("thumbnails are turned off on this gateway (GW_THUMBNAIL_SECS=0)");
        }
        sessions.get(Authenticator.identity(ctx), id).map(info -> info.orElseThrow(
                () -> new NotFoundException("no session " + id))).compose(thumbnails::of)
                .onFailure(ctx::fail).onSuccess(picture -> ctx.response().putHeader("Content-Type", "image/jpeg")
                        .putHeader("Cache-Control", "private, no-store")
                        .putHeader("X-Made-At", picture.madeAt().toString())
                        .end(Buffer.buffer(picture.jpeg())));
    }
}
