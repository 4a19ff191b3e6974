package org.farmgate.durable;

import static org.farmgate.durable.Rows.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.farmgate.durable.Summaries.ChainCheck;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The audit log's chain on both databases: appended once per event, and every kind of hand edit found. */
class AuditTest {

    @ParameterizedTest
    @EnumSource(Databases.class)
    void eventsAreChainedOnceEachAndTheChainHolds(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            AuditEvent twice = Rows.audit("token.create", "alice", T0);
            store.record(twice);
            store.record(Rows.audit("session.delete", "bob", T0.plusSeconds(1)));
            store.record(twice);
            HistoryTest.awaitWritten(store, 3);
            Page<AuditRow> page = Rows.await(store.run(Operation.audit(AuditFilter.all())));
            assertEquals(2, page.total());
            assertEquals(List.of(2L, 1L), page.rows().stream().map(AuditRow::seq).toList());
            assertEquals(page.rows().get(1).hash(), page.rows().get(0).prevHash());
            ChainCheck check = Rows.await(store.run(Operation.verifyAudit()));
            assertTrue(check.intact(), check::problem);
            assertEquals(2, check.headSeq());
            assertEquals(page.rows().get(0).hash(), check.headHash());
        }
    }

    /**
     * A batch's first try does not ask the log which of its events it holds (none can be there): an event given again
     * in a later batch is refused by the log's unique id, and the batch written again fact by fact, which asks.
     */
    @ParameterizedTest
    @EnumSource(Databases.class)
    void anEventGivenAgainInALaterBatchIsWrittenOnce(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            AuditEvent again = Rows.audit("token.revoke", "alice", T0);
            store.record(again);
            HistoryTest.awaitWritten(store, 1);
            store.record(again);
            store.record(Rows.audit("token.create", "bob", T0.plusSeconds(1)));
            HistoryTest.awaitWritten(store, 3);
            Page<AuditRow> page = Rows.await(store.run(Operation.audit(AuditFilter.all())));
            assertEquals(2, page.total());
            assertEquals(0, store.state().rejected(), "nothing was dropped");
            assertTrue(Rows.await(store.run(Operation.verifyAudit())).intact());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aChainBeingAppendedToVerifiesWhole(Databases kind) throws Exception {
        try (DurableStore writer = DurableStore.open(kind.fresh("node-1"))) {
            Thread appending = new Thread(() -> {
                for (int i = 0; i < 20_000 && !Thread.currentThread().isInterrupted(); i++) {
                    writer.record(Rows.audit("share.create", "user" + i, T0.plusSeconds(i)));
                    if (i % 100 == 0) {
                        try {
                            Thread.sleep(1); // the outbox's memory holds 1000 here: let the writer keep up
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            });
            appending.start();
            try {
                for (int i = 0; i < 100; i++) {
                    ChainCheck check = Rows.await(writer.run(Operation.verifyAudit()));
                    assertTrue(check.intact(), check::problem);
                }
            } finally {
                appending.interrupt();
                appending.join(10_000);
            }
        }
    }

    static Stream<Arguments> tampering() {
        return Databases.ALL.stream().flatMap(kind -> Stream.of(
                Arguments.of(kind, "an edited actor", "UPDATE audit_log SET actor_name = 'mallory' WHERE seq = 3", 3L),
                Arguments.of(kind, "an edited time", "UPDATE audit_log SET at = at + INTERVAL '1' SECOND WHERE seq = 2",
                        2L),
                Arguments.of(kind, "a removed row", "DELETE FROM audit_log WHERE seq = 2", 2L),
                Arguments.of(kind, "the newest rows removed", "DELETE FROM audit_log WHERE seq >= 4", 4L),
                Arguments.of(kind, "the oldest rows removed without a purge", "DELETE FROM audit_log WHERE seq <= 2",
                        3L),
                Arguments.of(kind, "a rehashed row", "UPDATE audit_log SET hash = prev_hash WHERE seq = 4", 4L)));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("tampering")
    void aHandEditedLogIsFoundAtTheFirstBrokenRow(Databases kind, String what, String edit, long brokenAt)
            throws Exception {
        StoreSettings settings = kind.fresh("node-1");
        try (DurableStore store = DurableStore.open(settings)) {
            for (int i = 0; i < 5; i++) {
                store.record(Rows.audit("share.create", "user" + i, T0.plusSeconds(i)));
            }
            HistoryTest.awaitWritten(store, 5);
            assertTrue(Rows.await(store.run(Operation.verifyAudit())).intact());
            try (Connection connection = Databases.connect(settings); Statement statement = connection
                    .createStatement()) {
                statement.executeUpdate(edit);
            }
            ChainCheck check = Rows.await(store.run(Operation.verifyAudit()));
            assertFalse(check.intact(), what);
            assertEquals(brokenAt, check.firstBroken(), check.problem());
            assertNotNull(check.problem());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aPurgeKeepsTheChainVerifiableAndRunsOnceAtATime(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            for (int i = 0; i < 4; i++) {
                store.record(Rows.audit("token.create", "old" + i, T0.plusSeconds(i)));
            }
            store.record(Rows.audit("token.create", "new", T0.plusSeconds(3600)));
            SessionRow old = Rows.opened("old", "alice", "node-1", T0);
            store.record(Rows.closed(old, T0.plusSeconds(10), "completed", "completed", null));
            SessionRow open = Rows.opened("open", "alice", "node-1", T0.plus(1, java.time.temporal.ChronoUnit.DAYS));
            store.record(new Fact.SessionOpened(open));
            HistoryTest.awaitWritten(store, 7);

            // history by whole days: a cut during T0's next day removes T0's day
            Summaries.Purged purged = Rows.await(store.run(Operation.purge(T0.plusSeconds(86_400), T0.plusSeconds(60),
                    "node-1", T0.plusSeconds(2 * 86_400))));
            assertEquals(new Summaries.Purged(1, 0, 4), purged);
            ChainCheck check = Rows.await(store.run(Operation.verifyAudit()));
            assertTrue(check.intact(), check::problem);
            assertEquals(5L, check.firstSeq());
            assertEquals(2, check.rows()); // the new event and the purge's own
            List<SessionRow> left = Rows.await(store.run(Operation.sessions(SessionFilter.all()))).rows();
            assertEquals(List.of("open"), left.stream().map(SessionRow::sessionId).toList(),
                    "a session still open is never purged");
            assertEquals(new Summaries.Summary(1, 0, 1, 1), Rows.await(store.run(Operation.summary(
                    SessionFilter.all()))), "the purged day's totals went with its rows; the open one's stay");

        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aNodeDoesNotPurgeWhileAnotherHoldsTheLease(Databases kind) throws Exception {
        StoreSettings settings = kind.fresh("node-2");
        try (DurableStore store = DurableStore.open(settings)) {
            store.record(Rows.audit("token.create", "old", T0));
            HistoryTest.awaitWritten(store, 1);
            try (Connection connection = Databases.connect(settings); Statement statement = connection
                    .createStatement()) {
                statement.executeUpdate("UPDATE maintenance_lease SET holder = 'node-1', until = TIMESTAMP WITH TIME "
                        + "ZONE '2026-11-02 12:00:00+00' WHERE name = 'purge'");
            }
            assertNull(Rows.await(store.run(Operation.purge(T0.plusSeconds(60), T0.plusSeconds(60), "node-2",
                    T0.plusSeconds(3600)))));
            assertEquals(1, Rows.await(store.run(Operation.audit(AuditFilter.all()))).total());
            assertEquals(new Summaries.Purged(0, 0, 1), Rows.await(store.run(Operation.purge(T0.plusSeconds(60),
                    T0.plusSeconds(60), "node-2", T0.plusSeconds(3 * 3600)))), "the lease ran out: taken over");
        }
    }
}
