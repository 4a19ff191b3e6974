package org.farmgate.node.accountability;

import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Fact;
import org.farmgate.durable.Operation;
import org.farmgate.model.NodeLoad;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What keeps history true and bounded over time:
 * <ul>
 * <li>at start, the rows this node left open before it (re)started are closed as lost: it holds none of them;</li>
 * <li>every round, the coordinator closes as lost the rows of nodes that are not in the registry any more (a node
 * that died while the cluster was down, whose sessions nobody marked lost); a row younger than two rounds is left
 * alone, since its node may be joining;</li>
 * <li>every hour, each node tries the retention purge; the store's lease lets one do it at a time.</li>
 * </ul>
 * Each close happens once whoever runs it (the store closes only open rows).
 */
public final class Housekeeping {

    private static final Logger LOG = LoggerFactory.getLogger(Housekeeping.class);
    public static final Duration ROUND = Duration.ofMinutes(1);
    private static final Duration PURGE_EVERY = Duration.ofHours(1);

    private final Vertx vertx;
    private final DurableStore store;
    private final String nodeId;
    private final Supplier<CompletionStage<java.util.List<NodeLoad>>> nodes;
    private final BooleanSupplier coordinator;
    private final Duration historyRetention;
    private final Duration auditRetention;
    private final Clock clock;
    private long roundTimer = -1;
    private long purgeTimer = -1;

    public Housekeeping(Vertx vertx, DurableStore store, String nodeId,
            Supplier<CompletionStage<java.util.List<NodeLoad>>> nodes, BooleanSupplier coordinator,
            Duration historyRetention, Duration auditRetention, Clock clock) {
        this.vertx = vertx;
        this.store = store;
        this.nodeId = nodeId;
        this.nodes = nodes;
        this.coordinator = coordinator;
        this.historyRetention = historyRetention;
        this.auditRetention = auditRetention;
        this.clock = clock;
    }

    public void start(Instant startedAt) {
        if (!store.configured()) {
            return;
        }
        store.record(new Fact.NodeRestarted(nodeId, startedAt));
        roundTimer = vertx.setPeriodic(ROUND.toMillis(), id -> {
            if (coordinator.getAsBoolean()) {
                closeOrphans();
            }
        });
        // spread over the hour, so that nodes started together do not all try at once
        long first = (long) (Math.random() * PURGE_EVERY.toMillis());
        purgeTimer = vertx.setTimer(first, id -> {
            purge();
            purgeTimer = vertx.setPeriodic(PURGE_EVERY.toMillis(), again -> purge());
        });
    }

    public void stop() {
        vertx.cancelTimer(roundTimer);
        vertx.cancelTimer(purgeTimer);
    }

    /** One coordinator's round: the rows of nodes gone from the registry closed as lost. */
    public CompletionStage<Integer> closeOrphans() {
        Instant now = clock.instant();
        return nodes.get().thenCompose(loads -> {
            Set<String> live = loads.stream().map(NodeLoad::nodeId).collect(Collectors.toSet());
            live.add(nodeId);
            return store.run(Operation.closeOrphans(live, now.minus(ROUND.multipliedBy(2)), now));
        }).whenComplete((closed, error) -> {
            if (error != null) {
                LOG.warn("could not close the history rows of departed nodes: {}", error.getMessage());
            } else if (closed > 0) {
                LOG.info("{} history rows of departed nodes closed as lost", closed);
            }
        });
    }

    public CompletionStage<?> purge() {
        Instant now = clock.instant();
        return store.run(Operation.purge(now.minus(historyRetention), now.minus(auditRetention), nodeId, now))
                .whenComplete((purged, error) -> {
                    if (error != null) {
                        LOG.warn("the retention purge failed: {}", error.getMessage());
                    } else if (purged != null && (purged.historyRows() > 0 || purged.auditRows() > 0)) {
                        LOG.info("retention purge: {} history rows, {} watcher rows, {} audit rows removed",
                                purged.historyRows(), purged.watcherRows(), purged.auditRows());
                    }
                });
    }
}
