package org.farmgate.node.api;

import io.vertx.ext.web.Router;
import java.util.LinkedHashMap;
import java.util.Map;

/** {@code GET /api/health}: liveness, no authentication, as rustguac answers it. */
public final class HealthApi {

    private final String nodeId;

    public HealthApi(String nodeId) {
        this.nodeId = nodeId;
    }

    public void mount(Router router) {
        router.get("/api/health").handler(ctx -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("status", "ok");
            body.put("node_id", nodeId);
            Responses.json(ctx, 200, body);
        });
    }
}
