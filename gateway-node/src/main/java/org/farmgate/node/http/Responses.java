package org.farmgate.node.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.farmgate.error.GatewayException;
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

    /** A coding's weight that refuses it. */
    private static final Pattern REFUSED = Pattern.compile("(?i)q=0(\\.0*)?");

    /** Whether the client takes a gzipped body ({@code Accept-Encoding} names gzip, not with {@code q=0}). */
    public static boolean acceptsGzip(HttpServerRequest request) {
        String accepted = request.getHeader("Accept-Encoding");
        if (accepted == null) {
            return false;
        }
        for (String coding : accepted.split(",")) {
            String[] parts = coding.trim().split(";");
            if (parts[0].trim().equalsIgnoreCase("gzip")) {
                return parts.length < 2 || !REFUSED.matcher(parts[1].replace(" ", "")).matches();
            }
        }
        return false;
    }

    public static void noContent(RoutingContext ctx) {
        ctx.response().setStatusCode(204).end();
    }

    /** The error's status as HTTP, its message as {@code error}, its details beside it. */
    public static void error(RoutingContext ctx, GatewayException error) {
        if (ctx.response().headWritten()) {
            ctx.response().reset();
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", error.getMessage());
        body.putAll(error.details());
        error.headers().forEach(ctx.response()::putHeader);
        json(ctx, HttpStatuses.of(error), body);
    }

    /** An error of HTTP itself (an unknown route or method, a body over the limit), with no domain status. */
    public static void error(RoutingContext ctx, int status, String message) {
        if (ctx.response().headWritten()) {
            ctx.response().reset();
            return;
        }
        json(ctx, status, Map.of("error", message));
    }
}
