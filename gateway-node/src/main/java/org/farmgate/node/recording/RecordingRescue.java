package org.farmgate.node.recording;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.FileNotFoundException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Fact;
import org.farmgate.durable.Operation;
import org.farmgate.durable.RecordingRow;
import org.farmgate.model.NodeLoad;
import org.farmgate.node.async.Stages;
import org.farmgate.recording.RecordingStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the cluster does about recordings no single node owns, on the coordinator only (one member at a time):
 * <ul>
 * <li>every round, the uploads of nodes that left the cluster are completed from the part tags the index kept, so
 * what a dead node had uploaded becomes a playable recording, marked incomplete with why; completing is idempotent,
 * so a coordinator that changes mid-round and does it again does no harm;</li>
 * <li>every hour, retention: recordings past {@code GW_RECORDING_MAX_AGE_DAYS}, beyond {@code GW_RECORDING_MAX_COUNT},
 * or beyond their entry's {@code max_recordings} are deleted from storage, then marked deleted in the index.</li>
 * </ul>
 */
public final class RecordingRescue {

    private static final Logger LOG = LoggerFactory.getLogger(RecordingRescue.class);
    static final Duration ROUND = Duration.ofMinutes(1);
    private static final Duration RETENTION_EVERY = Duration.ofHours(1);

    private final Vertx vertx;
    private final DurableStore store;
    private final Recordings recordings;
    private final String nodeId;
    private final Supplier<CompletionStage<List<NodeLoad>>> nodes;
    private final BooleanSupplier coordinator;
    private final Supplier<CompletionStage<Map<String, Integer>>> perEntry;
    private final Clock clock;
    private long roundTimer = -1;
    private long retentionTimer = -1;

    /** @param perEntry each entry's {@code max_recordings}, by its folder's path and its name ({@code path/name}) */
    public RecordingRescue(Vertx vertx, DurableStore store, Recordings recordings, String nodeId,
            Supplier<CompletionStage<List<NodeLoad>>> nodes, BooleanSupplier coordinator,
            Supplier<CompletionStage<Map<String, Integer>>> perEntry, Clock clock) {
        this.vertx = vertx;
        this.store = store;
        this.recordings = recordings;
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.coordinator = coordinator;
        this.perEntry = perEntry;
        this.clock = clock;
    }

    public void start() {
        roundTimer = vertx.setPeriodic(ROUND.toMillis(), id -> {
            if (coordinator.getAsBoolean()) {
                // a recording that started a moment ago may be a joining node's, not yet in the registry
                completeOrphans(clock.instant().minus(ROUND));
            }
        });
        retentionTimer = vertx.setPeriodic(RETENTION_EVERY.toMillis(), id -> {
            if (coordinator.getAsBoolean()) {
                retire();
            }
        });
    }

    public void stop() {
        vertx.cancelTimer(roundTimer);
        vertx.cancelTimer(retentionTimer);
    }

    /**
     * The recordings of departed nodes started before {@code startedBefore}, completed; the future gives how many
     * were. One that fails (storage unreachable, the dead node's last upload still landing) stays marked running, and
     * the next round tries it again.
     */
    public Future<Integer> completeOrphans(Instant startedBefore) {
        return Stages.await(vertx, nodes.get()).compose(loads -> {
            Set<String> live = loads.stream().map(NodeLoad::nodeId).collect(Collectors.toSet());
            live.add(nodeId);
            return Stages.await(vertx, store.run(Operation.orphanedRecordings(live, startedBefore)));
        }).compose(orphans -> {
            List<Future<Void>> done = new ArrayList<>();
            for (RecordingRow row : orphans) {
                done.add(recordings.attempt(() -> {
                    complete(row);
                    return null;
                }, "complete the recording of session " + row.sessionId() + " (its node " + row.nodeId()
                        + " left)", () -> true));
            }
            return Future.join(done).transform(ignored -> Future.succeededFuture(succeeded(done)));
        }).onFailure(e -> LOG.warn("could not complete the recordings of departed nodes: {}", e.getMessage()));
    }

    private static int succeeded(List<Future<Void>> done) {
        return (int) done.stream().filter(Future::succeeded).count();
    }

    private void complete(RecordingRow row) throws Exception {
        RecordingStorage storage = recordings.storage();
        String why = "its node (" + row.nodeId() + ") left the cluster while recording; ";
        long size;
        if (row.partTags().isEmpty()) {
            storage.abort(row.storageKey(), row.uploadId());
            size = 0;
            why += "nothing had been uploaded yet";
        } else {
            try {
                size = storage.complete(row.storageKey(), row.uploadId(), row.partTags());
                why += "the " + row.partTags().size() + " parts it had uploaded are kept";
            } catch (FileNotFoundException gone) {
                size = 0;
                why += "its upload is gone from storage";
            }
        }
        store.record(new Fact.RecordingEnded(row.sessionId(), clock.instant(), false, why, size));
        LOG.info("recording of session {} completed for departed node {}: {} bytes", row.sessionId(), row.nodeId(),
                size);
    }

    /** Retention's round; the future gives how many recordings it deleted (a failed one is tried next round). */
    public Future<Integer> retire() {
        var settings = recordings.settings();
        Instant before = settings.maxAge().isZero() ? null : clock.instant().minus(settings.maxAge());
        return Stages.await(vertx, perEntry.get()).compose(limits -> Stages.await(vertx, store.run(
                Operation.expiredRecordings(before, settings.maxCount(), limits)))).compose(expired -> {
                    List<Future<Void>> done = new ArrayList<>();
                    for (RecordingRow row : expired) {
                        done.add(recordings.attempt(() -> {
                            recordings.storage().delete(row.storageKey());
                            store.record(new Fact.RecordingDeleted(row.sessionId(), clock.instant(), "retention",
                                    "deleted by retention"));
                            return null;
                        }, "delete the expired recording of session " + row.sessionId(), () -> true));
                    }
                    return Future.join(done).transform(ignored -> Future.succeededFuture(succeeded(done)));
                }).onFailure(e -> LOG.warn("recording retention failed: {}", e.getMessage()));
    }
}
