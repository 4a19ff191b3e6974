package org.farmgate.node.session;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.Watcher;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.registry.NodeRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where a session ends. Whatever ends it (its tunnel closing, a failed handshake, the pending time
 * running out, a delete, the maximum duration, shutdown, or its node leaving the cluster), what the session held is
 * given back here and nowhere else: its final record (kept for the retention time, or removed at once after a
 * delete), its reservation on its node's registry entry, its place in its creator's quota, and the one log line that
 * says how it ended. Every step of the session's life, its end included, is then told as a {@link SessionEvent} to
 * whoever subscribed ({@link SessionEvents}): the metrics, the drive directories, history and the like; the ledger
 * knows none of them.
 *
 * <p>Every method is asynchronous and does no I/O of its own on the caller's thread, so {@link SessionHost} may call
 * it under a session's lock, which keeps a session's record writes and events in order. Giving back twice is
 * harmless to the reservation (released by session id); the host calls {@link #ended} once per session.
 */
public final class SessionLedger {

    private static final Logger LOG = LoggerFactory.getLogger(SessionLedger.class);

    private final String nodeId;
    private final SessionDirectory directory;
    private final NodeRegistry registry;
    private final SessionQuota quota;
    private final SessionEvents events;
    private final Clock clock;

    public SessionLedger(String nodeId, SessionDirectory directory, NodeRegistry registry, SessionQuota quota,
            SessionEvents events, Clock clock) {
        this.events = events;
        this.nodeId = nodeId;
        this.directory = directory;
        this.registry = registry;
        this.quota = quota;
        this.clock = clock;
    }

    /** A session placed on this node is pending, waiting for its first WebSocket. */
    /** @return when the session's first record is written (or could not be: logged), for the create's answer */
    CompletionStage<Void> opened(SessionInfo info, Origin origin) {
        CompletionStage<Void> written = write(info);
        events.tell(new SessionEvent.Opened(info, origin));
        return written;
    }

    /** The session's record written as it is (again, by the repair that found it missing). */
    public void publish(SessionInfo info) {
        write(info);
    }

    private CompletionStage<Void> write(SessionInfo info) {
        return directory.publish(info).thenAccept(written -> {
            if (!written) {
                LOG.info("session {}: the directory keeps its record over revision {} ({}): another node's, a newer "
                        + "one, an end, or a removal", info.sessionId(), info.revision(), info.status().wireName());
            }
        }).exceptionally(error -> {
            LOG.warn("could not publish the record of session {}: {}", info.sessionId(), error.getMessage());
            return null;
        });
    }

    /**
     * This node rejoined the cluster (after a split or a pause) still holding the session: its record and its quota
     * place are written again, since the other side may have marked it lost and given the place back meanwhile. Its
     * reservation comes back with the node's next heartbeat.
     */
    void reasserted(SessionInfo info) {
        logFailure(directory.reassert(info), "write again the record of", info.sessionId());
        logFailure(quota.tryAcquire(info.ownerId(), info.sessionId(), info.estimatedMemoryMb(),
                SessionQuota.Limits.NONE),
                "take again the quota place of", info.sessionId());
    }

    /**
     * A client is attached, so the guacd connection exists. The reservation turns active with the node's next
     * heartbeat, which carries the host measurement taken with it: a write of its own would tell the routers the
     * memory is in a measurement that does not show it yet, and costs the create path one more cluster update.
     */
    void attached(SessionInfo info) {
        publish(info);
        LOG.info("session {} active: node={} protocol={}", info.sessionId(), nodeId, info.sessionType().wireName());
        events.tell(new SessionEvent.Attached(info));
    }

    /** The client went without a word; guacd's connection is held for one to come back. */
    void detached(SessionInfo info, String why) {
        publish(info);
        events.tell(new SessionEvent.Detached(info, why));
    }

    /** Someone joined by a share link; {@code info} lists them. */
    void watcherJoined(SessionInfo info, Watcher watcher) {
        publish(info);
        events.tell(new SessionEvent.WatcherJoined(info, watcher));
    }

    /** A watcher left a session that goes on; {@code info} no longer lists them. */
    void watcherLeft(SessionInfo info, Watcher watcher, String why) {
        publish(info);
        events.tell(new SessionEvent.WatcherLeft(info, watcher, why));
    }

    /**
     * A session of this node ended, with its final record {@code ended}; {@code end} tells how its tunnel ended
     * when it had one. The record stays readable until {@link #forget} is called.
     */
    void ended(SessionInfo ended, TunnelEnd end) {
        publish(ended);
        giveBack(ended);
        long seconds = Duration.between(ended.createdAt(), ended.endedAt()).toSeconds();
        if (end != null) {
            LOG.info("session {} {}: node={} protocol={} duration={}s bytes_to_client={} bytes_to_guacd={} "
                    + "reason=\"{}\"", ended.sessionId(), ended.status().wireName(), nodeId,
                    ended.sessionType().wireName(), seconds, end.bytesToClient(), end.bytesToGuacd(),
                    ended.endReason());
        } else {
            LOG.info("session {} {}: node={} protocol={} duration={}s reason=\"{}\"", ended.sessionId(),
                    ended.status().wireName(), nodeId, ended.sessionType().wireName(), seconds, ended.endReason());
        }
        events.tell(new SessionEvent.Ended(ended, end));
    }

    /**
     * A session of this node was deleted: its record goes at once; what it held is given back if it still lived.
     * Completes when the record is gone (or its removal failed, which is logged).
     */
    CompletionStage<Void> deleted(SessionInfo info, boolean wasLive, String by) {
        CompletionStage<Void> forgotten = forget(info);
        if (wasLive) {
            giveBack(info);
        }
        LOG.info("session {} deleted: node={} by={}", info.sessionId(), nodeId, by);
        events.tell(new SessionEvent.Deleted(info, wasLive, by));
        return forgotten;
    }

    /**
     * The record of an ended session leaves the directory (after the retention time, or at a delete), if it is
     * still the record of {@code info}'s node.
     */
    public CompletionStage<Void> forget(SessionInfo info) {
        CompletionStage<Void> removed = directory.remove(info).thenApply(ignored -> null);
        logFailure(removed, "remove the record of", info.sessionId());
        return removed;
    }

    /**
     * Another node left the cluster (this node is the coordinator that noticed): its live sessions turn
     * {@code lost}, and their creators get their places back. Its reservations went with its registry entry.
     */
    public CompletionStage<List<SessionInfo>> lost(String departedNodeId) {
        return directory.markLost(departedNodeId, clock.instant()).thenApply(lost -> givenBack(lost, departedNodeId));
    }

    /**
     * Records that call sessions live on this node, which this node does not hold (a write lost in a partition's
     * migration, say): they turn {@code lost}, and their places go back, as for a node that departed.
     */
    public CompletionStage<List<SessionInfo>> orphaned(Collection<String> ids) {
        return directory.markLost(ids, nodeId, clock.instant()).thenApply(lost -> givenBack(lost, nodeId));
    }

    private List<SessionInfo> givenBack(List<SessionInfo> lost, String ofNode) {
        for (SessionInfo session : lost) {
            logFailure(quota.release(session.ownerId(), session.sessionId()), "give back the quota place of",
                    session.sessionId());
            events.tell(new SessionEvent.Lost(session));
        }
        if (!lost.isEmpty()) {
            LOG.info("{} sessions of node {} marked lost", lost.size(), ofNode);
        }
        return lost;
    }

    private void giveBack(SessionInfo info) {
        logFailure(registry.release(nodeId, info.sessionId()), "release the reservation of", info.sessionId());
        logFailure(quota.release(info.ownerId(), info.sessionId()), "give back the quota place of",
                info.sessionId());
    }

    private static void logFailure(CompletionStage<?> stage, String what, String sessionId) {
        stage.exceptionally(error -> {
            LOG.warn("could not {} session {}: {}", what, sessionId, error.getMessage());
            return null;
        });
    }
}
