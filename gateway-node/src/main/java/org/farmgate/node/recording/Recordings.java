package org.farmgate.node.recording;

import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.farmgate.durable.DurableStore;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.config.RecordingSettings;
import org.farmgate.node.session.Origin;
import org.farmgate.node.session.Recorders;
import org.farmgate.node.session.RecordingTap;
import org.farmgate.node.session.SessionEvent;
import org.farmgate.recording.LocalDirectoryStorage;
import org.farmgate.recording.RecordingStorage;
import org.farmgate.recording.S3Storage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's recordings: started as a recorded session opens here ({@link Recorders}), finished as it stops
 * (its life's events), their storage calls on a small worker pool of their own, never an event loop.
 *
 * <p>Storage's health is what its last call said: a site that requires recordings ({@code GW_RECORDING_REQUIRED})
 * refuses new sessions while the last call failed, and takes them again with the first call that succeeds (the
 * parts waiting on disk are tried again every few seconds, so that is soon after storage is back).
 */
public final class Recordings implements Recorders, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Recordings.class);
    /** How long after its session's end a recording's storage calls are still tried. */
    static final Duration GIVE_UP_AFTER = Duration.ofMinutes(10);
    private static final long MAX_BACKOFF_MS = 30_000;
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd").withZone(ZoneOffset.UTC);

    private final Vertx vertx;
    private final String nodeId;
    private final RecordingSettings settings;
    private final RecordingStorage storage;
    private final DurableStore store;
    private final Clock clock;
    private final WorkerExecutor worker;
    private final RecordingMetrics metrics;
    private final Map<String, SessionRecording> active = new ConcurrentHashMap<>();
    private final long flushTimer;
    private volatile String unhealthy;

    Recordings(Vertx vertx, String nodeId, RecordingSettings settings, RecordingStorage storage, DurableStore store,
            MeterRegistry registry, Clock clock) {
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.settings = settings;
        this.storage = storage;
        this.store = store;
        this.clock = clock;
        this.worker = vertx.createSharedWorkerExecutor("farmgate-recordings", 4);
        this.metrics = new RecordingMetrics(registry, active::size, this::waitingBytes);
        // a quiet session's last screen reaches the disk within two seconds, so it is there if the node dies
        this.flushTimer = vertx.setPeriodic(1000, id -> active.values()
                .forEach(recording -> recording.flushIfOlderThan(TimeUnit.SECONDS.toNanos(2))));
    }

    /** The node's recordings as configured; null when it records nothing. */
    public static Recordings start(Vertx vertx, String nodeId, RecordingSettings settings, DurableStore store,
            MeterRegistry registry, Clock clock) {
        if (!settings.enabled()) {
            return null;
        }
        try {
            Files.createDirectories(settings.spoolDir());
            RecordingStorage storage = settings.s3() != null ? new S3Storage(settings.s3())
                    : new LocalDirectoryStorage(settings.directory());
            LOG.info("sessions are recorded ({}) to {}; spool {}", settings.mode().name().toLowerCase(),
                    storage.describe(), settings.spoolDir());
            return new Recordings(vertx, nodeId, settings, storage, store, registry, clock);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the recordings' directories: " + e.getMessage(), e);
        }
    }

    @Override
    public RecordingTap start(SessionInfo session, Origin origin) {
        String id = session.sessionId();
        SessionRecording recording = new SessionRecording(this, id, DAY.format(session.createdAt()) + "/" + id
                + ".guac", settings.keys());
        active.put(id, recording);
        recording.begin(session.createdAt(), nodeId);
        return recording;
    }

    /** Subscribed to the node's session events: a recording ends with its session's stay on this node. */
    public void onEvent(SessionEvent event) {
        boolean stopped = event instanceof SessionEvent.Ended
                || event instanceof SessionEvent.Deleted deleted && deleted.wasLive();
        SessionRecording recording = stopped ? active.get(event.session().sessionId()) : null;
        if (recording != null) {
            recording.finish(clock.instant());
        }
    }

    /** Why a new session cannot be recorded now, or null; only a site that requires recordings asks. */
    public String refusal() {
        String why = unhealthy;
        return why == null ? null : "this site records every session and its recording storage fails now ("
                + why + "); no new session starts until it answers";
    }

    public boolean required() {
        return settings.required();
    }

    public RecordingStorage storage() {
        return storage;
    }

    public RecordingSettings settings() {
        return settings;
    }

    /**
     * Runs a blocking storage step on the recordings' pool, again after 1, 2, 4 ... 30 s while it fails, until
     * {@code givenUp} says so; the future fails then with the last failure. Its outcome is storage's health.
     */
    Future<Void> attempt(Callable<Void> task, String what, BooleanSupplier givenUp) {
        return attempt(task, what, givenUp, true, 1000);
    }

    /** As {@link #attempt}, for a step on the node's own disk: it says nothing of storage's health. */
    Future<Void> attemptOnDisk(Callable<Void> task, String what, BooleanSupplier givenUp) {
        return attempt(task, what, givenUp, false, 1000);
    }

    private Future<Void> attempt(Callable<Void> task, String what, BooleanSupplier givenUp, boolean storage,
            long backoffMs) {
        return worker.executeBlocking(task, false).onSuccess(ignored -> {
            if (storage) {
                unhealthy = null;
            }
        }).recover(error -> {
            if (storage) {
                metrics.failed();
                unhealthy = error.getMessage();
            }
            if (givenUp.getAsBoolean()) {
                LOG.warn("gave up trying to {}: {}", what, error.getMessage());
                return Future.failedFuture(error);
            }
            if (backoffMs == 1000) {
                LOG.warn("could not {} (tried again every few seconds): {}", what, error.toString());
            }
            Promise<Void> later = Promise.promise();
            vertx.setTimer(backoffMs, id -> attempt(task, what, givenUp, storage,
                    Math.min(MAX_BACKOFF_MS, backoffMs * 2)).onComplete(later));
            return later.future();
        });
    }

    /** The recordings' worker pool: storage calls, spool writes, and the playback's reads. */
    public WorkerExecutor worker() {
        return worker;
    }

    DurableStore store() {
        return store;
    }

    RecordingMetrics metrics() {
        return metrics;
    }

    Clock clock() {
        return clock;
    }

    Path spoolDir() {
        return settings.spoolDir();
    }

    long partBytes() {
        return settings.partBytes();
    }

    long spoolBytes() {
        return settings.spoolBytes();
    }

    /** The recording this node is making of {@code sessionId}, or null. */
    SessionRecording running(String sessionId) {
        return active.get(sessionId);
    }

    void forget(SessionRecording recording) {
        active.remove(recording.sessionId(), recording);
    }

    private long waitingBytes() {
        long total = 0;
        for (SessionRecording recording : active.values()) {
            total += recording.waitingBytes();
        }
        return total;
    }

    /**
     * Finishes what is still recorded (the node stops; its sessions were ended first), waiting up to
     * {@code patience} for the uploads to complete.
     */
    public Future<Void> finishAll(Duration patience) {
        List<Future<Void>> finishing = new ArrayList<>();
        for (SessionRecording recording : List.copyOf(active.values())) {
            finishing.add(recording.finish(clock.instant()));
        }
        Promise<Void> done = Promise.promise();
        long timer = vertx.setTimer(Math.max(1, patience.toMillis()), id -> done.tryComplete());
        Future.join(finishing).onComplete(ignored -> {
            vertx.cancelTimer(timer);
            done.tryComplete();
        });
        return done.future();
    }

    @Override
    public void close() {
        vertx.cancelTimer(flushTimer);
        worker.close();
        storage.close();
    }
}
