package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.db.TestPostgres;
import org.farmgate.testkit.fault.FaultProxy;
import org.farmgate.testkit.fault.Faults;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL goes away (the fault proxy in front of it cuts every connection and refuses new ones, as a stopped
 * server does) under steady creates and deletes: sessions go on, and when it comes back every session of the outage
 * has its history row and audit rows, none twice. A site that requires the audit refuses new sessions meanwhile.
 * The outage lasts {@code farmgate.test.dbOutageSeconds} (15 in the suite; bench/RESULTS.md has the 60 s run).
 */
@WaitBound
class DatabaseOutageTest {

    private static final int OUTAGE_SECONDS = Integer.getInteger("farmgate.test.dbOutageSeconds", 15);

    private Vertx vertx;
    private FaultProxy proxy;
    private String url;
    private String user;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(TestPostgres.shared().isPresent(), () -> "no PostgreSQL: " + TestPostgres.whyUnavailable());
        TestPostgres server = TestPostgres.shared().get();
        url = server.newDatabase();
        user = server.user();
        vertx = Vertx.vertx();
        proxy = FaultProxy.start(vertx, "127.0.0.1", 0, server.host(), server.port(), Faults.NONE)
                .toCompletionStage().toCompletableFuture().get();
    }

    @AfterEach
    void stop() {
        if (vertx != null) {
            vertx.close().await();
        }
    }

    private Map<String, String> settings(boolean auditRequired) {
        String proxied = url.replace(":" + TestPostgres.shared().get().port() + "/", ":" + proxy.port() + "/");
        return Map.of("GW_DB_URL", proxied.substring("jdbc:".length()), "GW_DB_USER", user,
                "GW_DB_STATEMENT_TIMEOUT_SECS", "2", "GW_AUDIT_REQUIRED", Boolean.toString(auditRequired));
    }

    @Test
    void sessionsGoOnAndEverySessionOfTheOutageIsWrittenOnceWhenTheDatabaseReturns() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), settings(false))) {
            node.sshSession();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT COUNT(*) FROM "
                    + "session_history") == 1);

            vertx.runOnContext(ignored -> proxy.down());
            List<String> during = new ArrayList<>();
            long until = System.nanoTime() + Duration.ofSeconds(OUTAGE_SECONDS).toNanos();
            while (System.nanoTime() < until && during.size() < 10_000) {
                SessionInfo session = node.sshSession();
                during.add(session.sessionId());
                assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN,
                        null).statusCode());
                Thread.sleep(100);
            }
            assertTrue(node.node.records().state().spooledBytes() > 0, "the facts of the outage wait in the spool");
            HttpResponse<String> ready = node.request("GET", "/api/ready", null, null);
            assertEquals(200, ready.statusCode(), "a database that is away is a detail of readiness, not a reason");
            assertTrue(ready.body().contains("the database is away"), ready::body);

            // a token is the database's before it is anyone's: none is made while it is away, and its name stays free
            HttpResponse<String> token = node.request("POST", "/api/tokens", TestNode.ADMIN,
                    "{\"name\":\"made-in-the-outage\",\"role\":\"viewer\"}");
            assertEquals(503, token.statusCode(), token::body);
            assertTrue(token.body().contains("could not save the token"), token::body);

            long spooled = node.node.records().state().spooledBytes();
            vertx.runOnContext(ignored -> proxy.up());
            long back = System.nanoTime();
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> node.node.records().state().writable()
                    && node.node.records().state().queued() == 0);
            System.out.printf("database away %d s: %d sessions created and deleted meanwhile, %d bytes spooled, "
                    + "written %.1f s after it came back%n", OUTAGE_SECONDS, during.size(), spooled,
                    (System.nanoTime() - back) / 1e9);
            for (String id : during) {
                assertEquals(1, count("SELECT COUNT(*) FROM session_history WHERE session_id = ? AND end_reason = "
                        + "'ended'", id), id);
                assertEquals(1, count("SELECT COUNT(*) FROM audit_log WHERE target = ? AND action = "
                        + "'session.create'", id), id);
                assertEquals(1, count("SELECT COUNT(*) FROM audit_log WHERE target = ? AND action = "
                        + "'session.delete'", id), id);
            }
            assertEquals(0, node.node.records().state().dropped());
            assertTrue(TestNode.json(node.request("GET", "/api/audit/verify", TestNode.ADMIN, null)).get("intact")
                    .asBoolean());
            assertEquals(201, node.request("POST", "/api/tokens", TestNode.ADMIN,
                    "{\"name\":\"made-in-the-outage\",\"role\":\"viewer\"}").statusCode());
        }
    }

    @Test
    void aSiteThatRequiresTheAuditRefusesNewSessionsWhileItCannotBeWritten() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), settings(true))) {
            node.sshSession();
            java.util.concurrent.CompletableFuture<Void> downed = new java.util.concurrent.CompletableFuture<>();
            vertx.runOnContext(ignored -> {
                proxy.down();
                downed.complete(null);
            });
            downed.get(10, java.util.concurrent.TimeUnit.SECONDS);
            // The outbox learns that the database is away by failing to write: facts made after it went away (a
            // create's), made again until one has failed, since the first one's may have been written in time.
            Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                node.request("POST", "/api/sessions", TestNode.ADMIN, "{\"hostname\":\"127.0.0.1\",\"username\":\"u\"}");
                return !node.node.records().state().writable();
            });
            HttpResponse<String> refused = node.request("POST", "/api/sessions", TestNode.ADMIN,
                    "{\"hostname\":\"127.0.0.1\",\"username\":\"u\"}");
            assertEquals(503, refused.statusCode(), refused::body);
            assertTrue(refused.body().contains("GW_AUDIT_REQUIRED"), refused::body);
            assertEquals(503, node.request("GET", "/api/ready", null, null).statusCode());

            vertx.runOnContext(ignored -> proxy.up());
            Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> node.node.records().state().writable());
            node.sshSession();
        }
    }

    private long count(String sql, Object... values) {
        try (Connection connection = DriverManager.getConnection(url, user, "");
                PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                statement.setObject(i + 1, values[i]);
            }
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
