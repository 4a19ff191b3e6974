package org.farmgate.node.api;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import java.util.LinkedHashMap;
import java.util.Map;
import org.farmgate.node.cluster.Readiness;
import org.farmgate.node.http.Responses;

/**
 * {@code GET /api/health}: liveness, as rustguac answers it. {@code GET /api/ready}: readiness, 200 only when every
 * check passes (joined the cluster, guacd answering, Vault reachable when configured), 503 with the details
 * otherwise. Neither needs a token.
 */
public final class HealthApi {

    private final String nodeId;
    private final Readiness readiness;

    public HealthApi(String nodeId, Readiness readiness) {
        this.nodeId = nodeId;
        this.readiness = readiness;
    }

    public void mount(Router router) {
        // HEAD too: load balancers and uptime checkers probe with it.
        router.route("/api/health").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ctx -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("status", "ok");
            body.put("node_id", nodeId);
            Responses.json(ctx, 200, body);
        });
        router.route("/api/ready").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(ctx -> {
            boolean ready = true;
            Map<String, Object> details = new LinkedHashMap<>();
            for (Readiness.Check check : readiness.checks()) {
                ready &= check.ok();
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("ok", check.ok());
                entry.put("detail", check.detail());
                details.put(check.name(), entry);
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("status", ready ? "ready" : "not ready");
            body.put("node_id", nodeId);
            body.put("checks", details);
            Responses.json(ctx, ready ? 200 : 503, body);
        });
    }
}
