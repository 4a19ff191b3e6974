package org.farmgate.durable;

import static org.awaitility.Awaitility.await;
import static org.farmgate.durable.Rows.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Session rows on both databases: written once, closed once, whatever order and however often facts arrive. */
class HistoryTest {

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aSessionIsClosedOnceByWhicheverCloseLandsFirst(Databases kind) throws Exception {
        StoreSettings settings = kind.fresh("node-1");
        try (DurableStore store = DurableStore.open(settings)) {
            SessionRow row = Rows.opened("s1", "alice", "node-1", T0);
            store.record(new Fact.SessionOpened(row));
            store.record(new Fact.SessionOpened(row));
            store.record(new Fact.SessionAttached("s1"));
            store.record(Rows.closed(row, T0.plusSeconds(90), "completed", "completed", null));
            store.record(Rows.closed(row, T0.plusSeconds(120), "lost", "lost", null));
            // a close whose opening never landed (its node died with it in memory) still leaves a row
            SessionRow orphan = Rows.opened("s2", "bob", "node-2", T0);
            store.record(Rows.closed(orphan, T0.plusSeconds(30), "lost", "lost", null));
            awaitWritten(store, 6);

            Page<SessionRow> page = Rows.await(store.run(Operation.sessions(SessionFilter.all())));
            assertEquals(2, page.total());
            SessionRow s1 = page.rows().stream().filter(r -> r.sessionId().equals("s1")).findFirst().orElseThrow();
            assertEquals("completed", s1.status());
            assertEquals(90L, s1.durationSecs());
            assertEquals(1000L, s1.bytesToClient());
            assertEquals("192.0.2.7", s1.clientAddress());
            assertEquals("prod/web", s1.folder());
            SessionRow s2 = page.rows().stream().filter(r -> r.sessionId().equals("s2")).findFirst().orElseThrow();
            assertEquals("lost", s2.status());
            assertEquals(30L, s2.durationSecs());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aNodeStartedAgainClosesWhatItLeftOpenAndNothingElse(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            store.record(new Fact.SessionOpened(Rows.opened("old", "alice", "node-1", T0)));
            store.record(new Fact.SessionOpened(Rows.opened("other", "alice", "node-2", T0)));
            store.record(new Fact.SessionOpened(Rows.opened("new", "alice", "node-1", T0.plusSeconds(600))));
            store.record(new Fact.NodeRestarted("node-1", T0.plusSeconds(300)));
            store.record(new Fact.NodeRestarted("node-1", T0.plusSeconds(300)));
            awaitWritten(store, 5);
            List<SessionRow> rows = Rows.await(store.run(Operation.sessions(SessionFilter.all()))).rows();
            assertEquals("lost", status(rows, "old"));
            assertEquals("pending", status(rows, "other"));
            assertEquals("pending", status(rows, "new"));
            assertEquals(300L, rows.stream().filter(r -> r.sessionId().equals("old")).findFirst().orElseThrow()
                    .durationSecs());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void rowsOfDepartedNodesAreClosedAsLostOnce(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            for (int i = 0; i < 5; i++) {
                store.record(new Fact.SessionOpened(Rows.opened("dead-" + i, "alice", "node-dead", T0)));
            }
            store.record(new Fact.SessionOpened(Rows.opened("alive", "alice", "node-1", T0)));
            store.record(new Fact.SessionOpened(Rows.opened("young", "alice", "node-new", T0.plusSeconds(100))));
            awaitWritten(store, 7);
            Operation<Integer> sweep = Operation.closeOrphans(Set.of("node-1"), T0.plusSeconds(50),
                    T0.plusSeconds(60));
            assertEquals(5, Rows.await(store.run(sweep)));
            assertEquals(0, Rows.await(store.run(sweep)));
            List<SessionRow> rows = Rows.await(store.run(Operation.sessions(SessionFilter.all()))).rows();
            assertEquals(5, rows.stream().filter(r -> "lost".equals(r.status())).count());
            assertEquals("pending", status(rows, "alive"));
            assertEquals("pending", status(rows, "young"));
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aWatcherJoinIsCountedOnceAndClosedWhenTheyLeave(Databases kind) throws Exception {
        StoreSettings settings = kind.fresh("node-1");
        try (DurableStore store = DurableStore.open(settings)) {
            store.record(new Fact.SessionOpened(Rows.opened("s1", "alice", "node-1", T0)));
            Fact.WatcherJoined join = new Fact.WatcherJoined("j1", "s1", "carol", "sh_1", true, T0.plusSeconds(5));
            store.record(join);
            store.record(join);
            store.record(new Fact.WatcherLeft("j1", T0.plusSeconds(65), "left"));
            awaitWritten(store, 4);
            SessionRow row = Rows.await(store.run(Operation.sessions(SessionFilter.all()))).rows().get(0);
            assertEquals(1, row.watchers());
            try (Connection connection = Databases.connect(settings); Statement statement = connection
                    .createStatement(); ResultSet result = statement.executeQuery("SELECT watcher_name, read_only, "
                            + "left_at, leave_reason FROM watcher_history")) {
                result.next();
                assertEquals("carol", result.getString(1));
                assertEquals(true, result.getBoolean(2));
                assertEquals("left", result.getString(4));
                assertEquals(false, result.next());
            }
        }
    }

    private static String status(List<SessionRow> rows, String id) {
        return rows.stream().filter(r -> r.sessionId().equals(id)).findFirst().map(SessionRow::status).orElse(null);
    }

    static void awaitWritten(DurableStore store, long facts) {
        await().atMost(Duration.ofSeconds(30)).until(() -> store.state().written() >= facts);
        assertNull(store.state().lastError());
    }
}
