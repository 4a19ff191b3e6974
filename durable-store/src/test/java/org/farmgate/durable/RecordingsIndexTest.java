package org.farmgate.durable;

import static org.farmgate.durable.Rows.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The recordings index on both databases: written from facts that may land twice, read by the API and the jobs. */
class RecordingsIndexTest {

    private static RecordingFilter all() {
        return new RecordingFilter(null, null, null, null, null, null, 100, 0);
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aRecordingBelongsToItsSessionsRowAndKeepsItsPartsInOrder(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            SessionRow row = Rows.opened("s-1", "alice", "node-1", T0);
            store.record(new Fact.SessionOpened(row));
            Fact.RecordingStarted started = new Fact.RecordingStarted("s-1", "s-1.guac", "up-1", "node-1", T0, true);
            store.record(started);
            store.record(started); // from a spool, again
            store.record(new Fact.RecordingPart("s-1", 1, "tag-1", 5_242_880));
            store.record(new Fact.RecordingPart("s-1", 1, "tag-1", 5_242_880)); // again
            store.record(new Fact.RecordingPart("s-1", 3, "tag-3", 10)); // out of order: not the next part
            store.record(new Fact.RecordingPart("s-1", 2, "tag-2", 100));
            Fact.RecordingJoined watcher = new Fact.RecordingJoined("s-1", "bob\tby link", true, T0.plusSeconds(5));
            store.record(watcher);
            store.record(watcher); // again
            store.record(new Fact.RecordingJoined("s-1", "alice", false, T0.plusSeconds(9)));
            HistoryTest.awaitWritten(store, 10);

            RecordingRow running = Rows.await(store.run(Operation.recording("s-1"))).orElseThrow();
            assertEquals(RecordingRow.RECORDING, running.state());
            assertEquals(List.of("tag-1", "tag-2"), running.partTags());
            assertEquals(5_242_980, running.sizeBytes());
            assertEquals("alice", running.createdBy(), "the session's row says whose it was");
            assertTrue(running.keysIncluded());
            assertEquals(List.of(new RecordingRow.Join("bob by link", T0.plusSeconds(5), true),
                    new RecordingRow.Join("alice", T0.plusSeconds(9), false)), running.joins(),
                    "who joined the recorded session, each once");
            SessionRow history = Rows.await(store.run(Operation.sessions(new SessionFilter(null, null, null, null,
                    null, null, 10, 0, null)))).rows().get(0);
            assertEquals("s-1.guac", history.recordingFile(), "the history row names its recording, as rustguac's");

            store.record(new Fact.RecordingEnded("s-1", T0.plusSeconds(60), true, null, 5_242_990));
            store.record(new Fact.RecordingEnded("s-1", T0.plusSeconds(90), false, "late, from a spool", 1));
            HistoryTest.awaitWritten(store, 12);
            RecordingRow ended = Rows.await(store.run(Operation.recording("s-1"))).orElseThrow();
            assertEquals(RecordingRow.COMPLETE, ended.state(), "the first end stands");
            assertEquals(5_242_990, ended.sizeBytes());
            assertEquals(T0.plusSeconds(60), ended.endedAt());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void listsFilterFindOrphansAndRetire(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            int facts = 0;
            for (int i = 0; i < 5; i++) {
                String id = "s-" + i;
                store.record(new Fact.SessionOpened(Rows.opened(id, i % 2 == 0 ? "alice" : "bob", "node-" + (i % 3),
                        T0.plusSeconds(i * 100L))));
                store.record(new Fact.RecordingStarted(id, id + ".guac", "up-" + i, "node-" + (i % 3),
                        T0.plusSeconds(i * 100L), false));
                facts += 2;
                if (i < 4) {
                    store.record(new Fact.RecordingEnded(id, T0.plusSeconds(i * 100L + 50), true, null, 10));
                    facts++;
                }
            }
            store.record(new Fact.RecordingDeleted("s-0", T0.plusSeconds(1000), "admin", "deleted by admin"));
            store.record(new Fact.RecordingDeleted("s-0", T0.plusSeconds(2000), "retention", "again"));
            HistoryTest.awaitWritten(store, facts + 2);

            Page<RecordingRow> page = Rows.await(store.run(Operation.recordings(all())));
            assertEquals(List.of("s-4", "s-3", "s-2", "s-1"), page.rows().stream().map(RecordingRow::sessionId)
                    .toList(), "newest first, the deleted one left out");
            assertEquals(4, page.total());
            assertEquals(List.of("s-4", "s-2"), Rows.await(store.run(Operation.recordings(new RecordingFilter(
                    "alice", null, null, null, null, null, 100, 0)))).rows().stream().map(RecordingRow::sessionId)
                    .toList());
            RecordingRow deleted = Rows.await(store.run(Operation.recording("s-0"))).orElseThrow();
            assertEquals(RecordingRow.DELETED, deleted.state());
            assertEquals("deleted by admin", deleted.stateDetail(), "deleted once");

            // s-4 (node-1) still records; node-1 is gone.
            assertEquals(List.of("s-4"), Rows.await(store.run(Operation.orphanedRecordings(Set.of("node-0",
                    "node-2"), T0.plusSeconds(10_000)))).stream().map(RecordingRow::sessionId).toList());
            assertEquals(List.of(), Rows.await(store.run(Operation.orphanedRecordings(Set.of("node-1"),
                    T0.plusSeconds(10_000)))));

            assertEquals(List.of("s-1", "s-2"), Rows.await(store.run(Operation.expiredRecordings(null, 1,
                    Map.of()))).stream().map(RecordingRow::sessionId).toList(), "beyond the newest one, oldest first");
            assertEquals(List.of("s-1"), Rows.await(store.run(Operation.expiredRecordings(T0.plusSeconds(150), 0,
                    Map.of()))).stream().map(RecordingRow::sessionId).toList(), "older than the cut");
        }
    }
}
