package org.farmgate.node.accountability;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.farmgate.durable.DurableStore;
import org.farmgate.node.async.Stages;
import org.farmgate.router.store.SharedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts the database's tokens, people's standings and group mappings back into a cluster whose maps start empty: the
 * first node of a cluster started from nothing. A cluster that is already running holds them (and may hold revocations the database has not heard of
 * yet, waiting in some node's spool): there, a joining node restores nothing, or it would bring those tokens back.
 * The cluster remembers that it was restored in a map entry of its own, which goes only when every node has.
 *
 * <p>Before restoring, the node writes what its own spool holds (a revocation made while the database was away,
 * before every node stopped), for at most {@link #SPOOL_WAIT}. A database that is away at start delays the restore,
 * never the node: it is tried again every {@link #RETRY} until it succeeds.
 */
public final class Restoration {

    private static final Logger LOG = LoggerFactory.getLogger(Restoration.class);
    static final String KEY = "tokens";
    static final Duration SPOOL_WAIT = Duration.ofSeconds(10);
    static final Duration RETRY = Duration.ofSeconds(15);

    /** Something put back: what it is called in the log, and how (completing with how many were put back). */
    public record Part(String what, Supplier<CompletionStage<Integer>> restore) {
    }

    /** That the cluster's maps were filled from the database, by which node, when. */
    public record Restored(String nodeId, Instant at) implements Serializable {
    }

    private final Vertx vertx;
    private final DurableStore store;
    private final List<Part> parts;
    private final SharedMap<String, Restored> restored;
    private final String nodeId;
    private final Clock clock;
    private volatile boolean stopped;

    public Restoration(Vertx vertx, DurableStore store, List<Part> parts, SharedMap<String, Restored> restored,
            String nodeId, Clock clock) {
        this.vertx = vertx;
        this.store = store;
        this.parts = List.copyOf(parts);
        this.restored = restored;
        this.nodeId = nodeId;
        this.clock = clock;
    }

    /** Completes when the cluster holds the database's tokens, or after a first failed try (retried later). */
    public Future<Void> start() {
        if (!store.configured()) {
            return Future.succeededFuture();
        }
        return attempt().recover(error -> {
            LOG.warn("could not put the database's tokens, people and mappings back into the cluster ({}); trying "
                    + "again every {} s: until then, only tokens made since work, and people sign in by their groups "
                    + "of the configuration", error.getMessage(), RETRY.toSeconds());
            retryLater();
            return Future.succeededFuture();
        });
    }

    public void stop() {
        stopped = true;
    }

    private void retryLater() {
        vertx.setTimer(RETRY.toMillis(), id -> {
            if (!stopped) {
                attempt().onFailure(error -> retryLater());
            }
        });
    }

    private Future<Void> attempt() {
        return await(restored.get(KEY)).compose(done -> {
            if (done != null) {
                return Future.succeededFuture();
            }
            Future<Void> all = spoolWritten();
            for (Part part : parts) {
                all = all.compose(ignored -> await(part.restore().get())).map(count -> {
                    LOG.info("{} {} put back into the cluster from the database", count, part.what());
                    return null;
                });
            }
            return all.compose(ignored -> await(restored.set(KEY, new Restored(nodeId, clock.instant()))));
        });
    }

    /** This node's spool written to the database, or the wait over. */
    private Future<Void> spoolWritten() {
        Promise<Void> written = Promise.promise();
        long deadline = System.nanoTime() + SPOOL_WAIT.toNanos();
        long timer = vertx.setPeriodic(100, id -> {
            boolean drained = store.state().spooledBytes() == 0 && store.state().queued() == 0;
            if (drained || System.nanoTime() > deadline) {
                vertx.cancelTimer(id);
                written.tryComplete();
            }
        });
        return written.future().onComplete(ignored -> vertx.cancelTimer(timer));
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
