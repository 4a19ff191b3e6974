package org.farmgate.node.cluster;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;
import org.farmgate.node.session.LocalSession;
import org.farmgate.node.session.SessionHost;
import org.farmgate.node.session.SessionLedger;
import org.farmgate.router.SessionDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each node's repair of the directory: a record that calls a session live on this node, which this node does not
 * hold, is an orphan (the end's write was lost while partitions migrated in a split, seen in the fault campaign);
 * one seen in two rounds in a row is marked lost and its quota place given back. A session this node holds as ended
 * whose record still says live gets its final record written again. A record is written only after its session is
 * in the node's memory and a session leaves memory only after its end is written, so a session being opened or
 * ended is never one; the second round covers a write still in flight.
 */
public final class OrphanRecords {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanRecords.class);
    public static final Duration ROUND = Duration.ofSeconds(15);

    private final Vertx vertx;
    private final String nodeId;
    private final SessionDirectory directory;
    private final SessionHost host;
    private final SessionLedger ledger;
    private final Duration round;
    private Set<String> suspects = Set.of();
    private long timer = -1;
    private final IntConsumer repaired;

    public OrphanRecords(Vertx vertx, String nodeId, SessionDirectory directory, SessionHost host,
            SessionLedger ledger, Duration round, IntConsumer repaired) {
        this.repaired = repaired;
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.directory = directory;
        this.host = host;
        this.ledger = ledger;
        this.round = round;
    }

    public void start() {
        timer = vertx.setPeriodic(round.toMillis(), id -> repairOnce()
                .onFailure(error -> LOG.warn("node {}: directory repair failed: {}", nodeId, error.getMessage())));
    }

    /** One round; the ids marked lost in it. */
    public Future<List<String>> repairOnce() {
        return Future.fromCompletionStage(directory.liveOn(nodeId), vertx.getOrCreateContext()).compose(ids -> {
            Set<String> orphans = new HashSet<>();
            Set<String> confirmed = new HashSet<>();
            List<String> ended = new ArrayList<>();
            for (String id : ids) {
                LocalSession session = host.local(id);
                if (session != null && session.info().status().isLive()) {
                    continue;
                }
                orphans.add(id);
                if (!suspects.contains(id)) {
                    continue;
                }
                if (session != null) {
                    ledger.publish(session.info()); // its end, written again
                    ended.add(id);
                } else {
                    confirmed.add(id);
                }
            }
            suspects = orphans;
            if (!ended.isEmpty()) {
                repaired.accept(ended.size());
            }
            if (confirmed.isEmpty()) {
                return Future.succeededFuture(List.copyOf(ended));
            }
            LOG.warn("node {}: the directory calls {} sessions live here that this node does not hold: marking "
                    + "them lost", nodeId, confirmed.size());
            return Future.fromCompletionStage(ledger.orphaned(confirmed), vertx.getOrCreateContext())
                    .map(lost -> {
                        repaired.accept(lost.size());
                        return lost.stream().map(info -> info.sessionId()).toList();
                    });
        });
    }

    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }
}
