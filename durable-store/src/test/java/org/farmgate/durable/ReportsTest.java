package org.farmgate.durable;

import static org.farmgate.durable.Rows.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.farmgate.durable.Summaries.Summary;
import org.farmgate.durable.Summaries.UserTotal;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** rustguac's reports over the history rows, on both databases; filters match as typed, never as SQL. */
class ReportsTest {

    private static final List<String> CREATORS = List.of("alice", "Alice.Admin", "bob", "50%off", "500",
            "under_score", "underXscore", "o'brien", "back\\slash");

    static Stream<Arguments> userFilters() {
        return Databases.ALL.stream().flatMap(kind -> Stream.of(
                Arguments.of(kind, "alice", List.of("alice", "Alice.Admin")),
                Arguments.of(kind, "ALICE", List.of("alice", "Alice.Admin")),
                Arguments.of(kind, "50%", List.of("50%off")),
                Arguments.of(kind, "%", List.of("50%off")),
                Arguments.of(kind, "under_", List.of("under_score")),
                Arguments.of(kind, "_", List.of("under_score")),
                Arguments.of(kind, "o'brien", List.of("o'brien")),
                Arguments.of(kind, "\\", List.of("back\\slash")),
                Arguments.of(kind, "'; DROP TABLE session_history; --", List.of()),
                Arguments.of(kind, "' OR '1'='1", List.of())));
    }

    @ParameterizedTest(name = "{0}: user={1}")
    @MethodSource("userFilters")
    void aUserFilterMatchesWhatWasTyped(Databases kind, String typed, List<String> expected) throws Exception {
        try (DurableStore store = filled(kind)) {
            SessionFilter filter = new SessionFilter(typed, null, null, null, null, null, 0, 0, null);
            Page<SessionRow> page = Rows.await(store.run(Operation.sessions(filter)));
            assertEquals(expected.stream().sorted().toList(), page.rows().stream().map(SessionRow::createdBy)
                    .sorted().toList());
            assertEquals(expected.size(), page.total());
            assertEquals(CREATORS.size(), Rows.await(store.run(Operation.sessions(SessionFilter.all()))).total(),
                    "the table is still whole");
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void filtersByTypeTimeEntryAndOwnerAndPagesNewestFirst(Databases kind) throws Exception {
        try (DurableStore store = filled(kind)) {
            Instant from = T0.plusSeconds(3600);
            Instant to = T0.plusSeconds(3 * 3600);
            Page<SessionRow> window = Rows.await(store.run(Operation.sessions(new SessionFilter(null, null, null,
                    from, to.plusSeconds(1), null, 2, 0, null))));
            assertEquals(3, window.total());
            assertEquals(List.of("50%off", "bob"), window.rows().stream().map(SessionRow::createdBy).toList());
            Page<SessionRow> next = Rows.await(store.run(Operation.sessions(new SessionFilter(null, null, null,
                    from, to.plusSeconds(1), null, 2, 2, null))));
            assertEquals(List.of("Alice.Admin"), next.rows().stream().map(SessionRow::createdBy).toList());

            assertEquals(1, Rows.await(store.run(Operation.sessions(new SessionFilter(null, null, "rdp", null, null,
                    null, 0, 0, null)))).total());
            assertEquals(CREATORS.size(), Rows.await(store.run(Operation.sessions(new SessionFilter(null, "WEB ONE",
                    null, null, null, null, 0, 0, null)))).total(), "an entry matches its display name too");
            Page<SessionRow> own = Rows.await(store.run(Operation.sessions(SessionFilter.all().ownedBy("tok_bob"))));
            assertEquals(List.of("bob"), own.rows().stream().map(SessionRow::createdBy).toList());

            // keyset paging walks every row once, as the CSV does
            List<String> walked = new ArrayList<>();
            SessionFilter page = SessionFilter.all().after(null, 4);
            while (true) {
                List<SessionRow> rows = Rows.await(store.run(Operation.sessions(page))).rows();
                rows.forEach(row -> walked.add(row.sessionId()));
                if (rows.size() < 4) {
                    break;
                }
                SessionRow last = rows.get(rows.size() - 1);
                page = page.after(new SessionFilter.Cursor(last.startedAt(), last.sessionId()), 4);
            }
            assertEquals(CREATORS.size(), walked.size());
            assertEquals(CREATORS.size(), walked.stream().distinct().count());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void summaryAndTopUsersAsRustguacGivesThem(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            assertEquals(new Summary(0, 0, 0, 0), Rows.await(store.run(Operation.summary(SessionFilter.all()))),
                    "an empty history has a summary of zeros (rustguac answers 500)");
            SessionRow a1 = Rows.opened("a1", "alice", "node-1", T0);
            SessionRow a2 = Rows.opened("a2", "alice", "node-1", T0.plusSeconds(10));
            store.record(Rows.closed(a1, T0.plusSeconds(3600), "completed", "completed", null));
            store.record(Rows.closed(a2, T0.plusSeconds(1810), "completed", "completed", null));
            store.record(new Fact.SessionOpened(Rows.opened("b1", "bob", "node-1", T0.plusSeconds(20))));
            HistoryTest.awaitWritten(store, 3);
            assertEquals(new Summary(3, 1.5, 2, 1), Rows.await(store.run(Operation.summary(SessionFilter.all()))));
            List<UserTotal> top = Rows.await(store.run(Operation.topUsers(SessionFilter.all(), 20)));
            assertEquals(List.of(new UserTotal("alice", 2, 1.5, T0.plusSeconds(10)),
                    new UserTotal("bob", 1, 0, T0.plusSeconds(20))), top);
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void theDailyRollupGivesWhatTheRowsGive(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            int facts = 0;
            for (int i = 0; i < 30; i++) {
                SessionRow row = SessionRow.opened("r" + i, i % 3 == 0 ? "rdp" : "ssh", "h", 22, "u", "user" + (i % 4),
                        null, null, null, T0.plusSeconds(i * 7200L), "pending", "tok", null, i % 5 == 0 ? "node-2"
                                : "node-1", null);
                store.record(new Fact.SessionOpened(row));
                facts++;
                if (i % 2 == 0) {
                    store.record(Rows.closed(row, row.startedAt().plusSeconds(600 + i), "completed", "completed",
                            null));
                    store.record(Rows.closed(row, row.startedAt().plusSeconds(9000), "lost", "lost", null));
                    facts += 2;
                }
            }
            store.record(new Fact.NodeRestarted("node-2", T0.plusSeconds(50 * 3600)));
            facts++;
            HistoryTest.awaitWritten(store, facts);
            Rows.await(store.run(Operation.closeOrphans(Set.of("node-1"), T0.plusSeconds(40 * 3600),
                    T0.plusSeconds(60 * 3600))));
            // from one second after the epoch: not a whole day, so the rows themselves are read
            SessionFilter rows = new SessionFilter(null, null, null, Instant.EPOCH.plusSeconds(1), null, null, 0, 0,
                    null);
            assertEquals(Rows.await(store.run(Operation.summary(rows))),
                    Rows.await(store.run(Operation.summary(SessionFilter.all()))));
            assertEquals(Rows.await(store.run(Operation.topUsers(rows, 10))),
                    Rows.await(store.run(Operation.topUsers(SessionFilter.all(), 10))));
            SessionFilter rdpRows = new SessionFilter(null, null, "rdp", T0.minusSeconds(1), null, null, 0, 0, null);
            SessionFilter rdpDays = new SessionFilter(null, null, "rdp", T0.truncatedTo(ChronoUnit.DAYS), null, null,
                    0, 0, null);
            assertEquals(Rows.await(store.run(Operation.summary(rdpRows))),
                    Rows.await(store.run(Operation.summary(rdpDays))));
        }
    }

    /** One session per creator, an hour apart, the fourth one RDP. */
    private static DurableStore filled(Databases kind) {
        DurableStore store = DurableStore.open(kind.fresh("node-1"));
        for (int i = 0; i < CREATORS.size(); i++) {
            String creator = CREATORS.get(i);
            SessionRow row = SessionRow.opened("s" + i, i == 3 ? "rdp" : "ssh", "h", 22, "u", creator, "web-1",
                    "prod", "Web one", T0.plusSeconds(i * 3600L), "pending", "tok_" + creator, null, "node-1", null);
            store.record(new Fact.SessionOpened(row));
        }
        HistoryTest.awaitWritten(store, CREATORS.size());
        return store;
    }
}
