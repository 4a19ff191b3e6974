package org.farmgate.node.api;

import io.vertx.ext.web.Router;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.farmgate.node.http.Responses;

/**
 * {@code GET /api/health}: liveness, as rustguac answers it. {@code GET /api/ready}: readiness, 200 only when every
 * check passes (joined the cluster, guacd answering, Vault reachable when configured), 503 with the details
 * otherwise. Neither needs a token.
 */
public final class HealthApi {

    /** One readiness check: its name, whether it passes, and what it saw. */
    public record Check(String name, boolean ok, String detail) {
    }

    private final String nodeId;
    private final List<Supplier<Check>> checks = new ArrayList<>();

    public HealthApi(String nodeId) {
        this.nodeId = nodeId;
    }

    public HealthApi check(Supplier<Check> check) {
        checks.add(check);
        return this;
    }

    public void mount(Router router) {
        router.get("/api/health").handler(ctx -> {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("status", "ok");
            body.put("node_id", nodeId);
            Responses.json(ctx, 200, body);
        });
        router.get("/api/ready").handler(ctx -> {
            boolean ready = true;
            Map<String, Object> details = new LinkedHashMap<>();
            for (Supplier<Check> supplier : checks) {
                Check check = supplier.get();
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
