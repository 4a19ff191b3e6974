package org.farmgate.durable;

import java.time.Instant;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/** Rows and facts as the tests write them. */
final class Rows {

    static final Instant T0 = Instant.parse("2026-11-02T10:00:00Z");

    private Rows() {
    }

    static SessionRow opened(String id, String user, String node, Instant at) {
        return SessionRow.opened(id, "ssh", "10.0.0.5", 22, "root", user, "web-1", "prod/web", "Web one", at,
                "pending", "tok_" + user, null, node, "192.0.2.7");
    }

    static Fact.SessionClosed closed(SessionRow row, Instant at, String status, String reason, String by) {
        return new Fact.SessionClosed(row, at, status, reason, by, "detail", 1000L, 200L);
    }

    static AuditEvent audit(String action, String actor, Instant at) {
        return new AuditEvent(Fact.newId(), at, action, AuditEvent.SUCCESS, "id-" + actor, actor, "admin",
                "192.0.2.1", "target", null, "node-1");
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
