package org.farmgate.durable;

import static org.awaitility.Awaitility.await;
import static org.farmgate.durable.Rows.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import org.farmgate.testkit.db.TestPostgres;
import org.farmgate.testkit.fault.FaultProxy;
import org.farmgate.testkit.fault.Faults;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The outbox against a real PostgreSQL that goes away (the fault proxy in front of it cuts every connection and
 * refuses new ones, as a stopped server does) and comes back: nothing recorded meanwhile is lost or written twice,
 * even across a restart of the store, and a fact the database refuses holds back no other.
 */
class OutboxFaultTest {

    private Vertx vertx;
    private FaultProxy proxy;
    private String url;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(TestPostgres.shared().isPresent(), () -> "no PostgreSQL: " + TestPostgres.whyUnavailable());
        TestPostgres server = TestPostgres.shared().get();
        String direct = server.newDatabase();
        vertx = Vertx.vertx();
        proxy = FaultProxy.start(vertx, "127.0.0.1", 0, server.host(), server.port(), Faults.NONE)
                .toCompletionStage().toCompletableFuture().get();
        url = direct.replace(":" + server.port() + "/", ":" + proxy.port() + "/");
    }

    @AfterEach
    void stop() {
        if (vertx != null) {
            vertx.close().await();
        }
    }

    @Test
    void whatIsRecordedWhileTheDatabaseIsAwayLandsOnceWhenItReturns() throws Exception {
        Path dir = Databases.tempDir();
        StoreSettings settings = Databases.at(url, TestPostgres.shared().get().user(), dir, "node-1");
        try (DurableStore store = DurableStore.open(settings)) {
            recordSessions(store, 0, 50);
            HistoryTest.awaitWritten(store, 100);

            down();
            recordSessions(store, 50, 150);
            await().atMost(Duration.ofSeconds(30)).until(() -> !store.state().databaseUp()
                    && store.state().spooledBytes() > 0 && store.state().queued() == 0);
            assertFalse(store.state().writable());
            long writtenBefore = store.state().written();
            // the writer keeps probing; nothing lands meanwhile
            await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(10))
                    .until(() -> store.state().written() == writtenBefore);

            proxy.up();
            await().atMost(Duration.ofSeconds(60)).until(() -> store.state().writable()
                    && store.state().queued() == 0);
            assertCounts(store, 150);
        }
    }

    @Test
    void theSpoolOutlivesTheStoreThatWroteIt() throws Exception {
        Path dir = Databases.tempDir();
        StoreSettings settings = Databases.at(url, TestPostgres.shared().get().user(), dir, "node-1");
        try (DurableStore store = DurableStore.open(settings)) {
            recordSessions(store, 0, 10);
            HistoryTest.awaitWritten(store, 20);
            down();
            recordSessions(store, 10, 40);
            await().atMost(Duration.ofSeconds(30)).until(() -> store.state().queued() == 0
                    && store.state().spooledBytes() > 0);
        }
        proxy.up();
        try (DurableStore again = DurableStore.open(settings)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> again.state().written() >= 60
                    && again.state().spooledBytes() == 0);
            assertCounts(again, 40);
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aFactTheDatabaseRefusesHoldsBackNoOther(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            store.record(new Fact.SessionOpened(Rows.opened("good-1", "alice", "node-1", T0)));
            store.record(new Fact.SessionOpened(SessionRow.opened("bad", "ssh", "h".repeat(300), 22, "u", "alice",
                    null, null, null, T0, "pending", "tok", null, "node-1", null)));
            store.record(new Fact.SessionOpened(Rows.opened("good-2", "alice", "node-1", T0)));
            await().atMost(Duration.ofSeconds(30)).until(() -> store.state().rejected() == 1
                    && store.state().written() == 2);
            assertEquals(2, Rows.await(store.run(Operation.sessions(SessionFilter.all()))).total());
            assertTrue(store.state().databaseUp());
        }
    }

    private void down() {
        vertx.runOnContext(ignored -> proxy.down());
    }

    /** Sessions {@code from..to}, each opened and closed, with an audit event each. */
    private static void recordSessions(DurableStore store, int from, int to) {
        for (int i = from; i < to; i++) {
            SessionRow row = Rows.opened("s" + i, "alice", "node-1", T0.plusSeconds(i));
            store.record(new Fact.SessionOpened(row));
            store.record(Rows.closed(row, T0.plusSeconds(i + 60), "completed", "completed", null));
            if (i % 3 == 0) {
                store.record(Rows.audit("session.delete", "bob", T0.plusSeconds(i)));
            }
        }
    }

    private static void assertCounts(DurableStore store, int sessions) throws Exception {
        SessionFilter all = new SessionFilter(null, null, null, null, null, null, SessionFilter.MAX_LIMIT, 0, null);
        Page<SessionRow> page = Rows.await(store.run(Operation.sessions(all)));
        assertEquals(sessions, page.total());
        assertTrue(page.rows().stream().allMatch(row -> "completed".equals(row.status())));
        long audits = (sessions + 2) / 3;
        assertEquals(audits, Rows.await(store.run(Operation.audit(AuditFilter.all()))).total());
        assertTrue(Rows.await(store.run(Operation.verifyAudit())).intact());
        assertEquals(0, store.state().dropped());
    }
}
