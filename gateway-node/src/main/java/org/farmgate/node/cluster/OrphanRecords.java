package org.farmgate.node.cluster;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import org.farmgate.model.NodeLoad;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.node.session.LocalSession;
import org.farmgate.node.session.SessionHost;
import org.farmgate.node.session.SessionLedger;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.store.Membership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each node's repair of the directory: a record that calls a session live on this node, which this node does not
 * hold, is an orphan (the end's write was lost while partitions migrated in a split, seen in the fault campaign);
 * one seen in two rounds in a row is marked lost and its quota place given back. A session this node holds as ended
 * whose record still says live gets its final record written again. A record is written only after its session is
 * in the node's memory and a session leaves memory only after its end is written, so a session being opened or
 * ended is never one; the second round covers a write still in flight.
 *
 * <p>The census is the coordinator's: every {@link #ROUND} it reads every live record once (one query, each member
 * scanning its own partitions once) and tells each node of the registry the ids the directory calls live on it, an
 * empty list included, so that a node's suspects clear. Each node asking for its own records instead made every
 * member scan its partitions for every node each round, and every node send a query to every member: per node, work
 * and messages that grew with the cluster (133 messages per node per second at 1000 nodes, simulated), where now a
 * node hears one notice a round and the coordinator sends one per node. Two rounds close together (a new coordinator
 * soon after the old one's) are harmless: an end whose write is in flight is written again, which is idempotent,
 * and a session that left the node's memory had its end written first. A node that misses a round (not yet in the
 * coordinator's view, a notice lost) keeps its suspects for the next one.
 */
public final class OrphanRecords {

    private static final Logger LOG = LoggerFactory.getLogger(OrphanRecords.class);
    public static final Duration ROUND = Duration.ofSeconds(15);
    /** What the coordinator tells each node: the ids the directory calls live on it. */
    static final String CENSUS = "directory-census";

    private final Vertx vertx;
    private final String nodeId;
    private final SessionDirectory directory;
    private final SessionHost host;
    private final SessionLedger ledger;
    private final Membership membership;
    private final NodeMessenger messenger;
    private final Duration round;
    private Set<String> suspects = Set.of();
    private volatile Set<String> nodes = Set.of();
    private long timer = -1;
    private MessageConsumer<String> hearing;
    private final IntConsumer repaired;

    public OrphanRecords(Vertx vertx, String nodeId, SessionDirectory directory, SessionHost host,
            SessionLedger ledger, Membership membership, NodeMessenger messenger, Duration round,
            IntConsumer repaired) {
        this.repaired = repaired;
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.directory = directory;
        this.host = host;
        this.ledger = ledger;
        this.membership = membership;
        this.messenger = messenger;
        this.round = round;
    }

    /** Takes the coordinator's census from now on, and takes it itself each round while it is the coordinator. */
    public void start() {
        hearing = messenger.hear(nodeId, CENSUS, String[].class, ids -> check(List.of(ids))
                .onFailure(error -> LOG.warn("node {}: directory repair failed: {}", nodeId, error.getMessage())));
        timer = vertx.setPeriodic(round.toMillis(), id -> {
            if (membership.isCoordinator()) {
                repairOnce().onFailure(error -> LOG.warn("node {}: the directory's census failed: {}", nodeId,
                        error.getMessage()));
            }
        });
    }

    /** The nodes of the registry, as the heartbeat last read it: whom the census tells. */
    public void seen(List<NodeLoad> view) {
        nodes = view.stream().map(NodeLoad::nodeId).collect(Collectors.toUnmodifiableSet());
    }

    /**
     * One census, taken here: every other node of the registry is told its part, and this node's is checked at
     * once; the ids marked lost here.
     */
    public Future<List<String>> repairOnce() {
        return Future.fromCompletionStage(directory.liveByNode(), vertx.getOrCreateContext()).compose(byNode -> {
            Set<String> told = new HashSet<>(nodes);
            told.addAll(byNode.keySet());
            told.remove(nodeId);
            for (String other : told) {
                messenger.tell(other, CENSUS, byNode.getOrDefault(other, List.of()));
            }
            return check(byNode.getOrDefault(nodeId, List.of()));
        });
    }

    /** One round of this node's: {@code ids} are what the directory calls live here; the ids marked lost. */
    private Future<List<String>> check(List<String> ids) {
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
    }

    public void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        if (hearing != null) {
            hearing.unregister();
        }
    }
}
