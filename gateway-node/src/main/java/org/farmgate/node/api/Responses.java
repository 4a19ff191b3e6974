package org.farmgate.node.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;
import org.farmgate.model.Json;

/** JSON responses, and the one shape of every error: {@code {"error": "...", ...}}. */
public final class Responses {

    private Responses() {
    }

    public static void json(RoutingContext ctx, int status, Object body) {
        String text;
        try {
            text = Json.mapper().writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("response not serialisable: " + body.getClass(), e);
        }
        ctx.response()
                .setStatusCode(status)
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .end(text);
    }

    /** A body rendered to JSON beforehand. */
    public static void json(RoutingContext ctx, int status, byte[] body) {
        ctx.response()
                .setStatusCode(status)
                .putHeader("Content-Type", "application/json")
                .putHeader("Cache-Control", "no-store")
                .end(Buffer.buffer(body));
    }

    public static void noContent(RoutingContext ctx) {
        ctx.response().setStatusCode(204).end();
    }

    public static void error(RoutingContext ctx, ApiException error) {
        if (ctx.response().headWritten()) {
            ctx.response().reset();
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error.getMessage());
        body.putAll(error.details());
        error.headers().forEach(ctx.response()::putHeader);
        json(ctx, error.status(), body);
    }
}
