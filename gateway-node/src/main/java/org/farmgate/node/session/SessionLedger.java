package org.farmgate.node.session;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.SessionRouter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where a session ends. Whatever ends it (its tunnel closing, a failed handshake, the pending time
 * running out, a delete, the maximum duration, shutdown, or its node leaving the cluster), what the session held is
 * given back here and nowhere else: its drive directory, its final record (kept for the retention time, or removed
 * at once after a delete), its reservation on its node's registry entry, its place in its creator's quota, the count
 * of ends by status, and the one log line that says how it ended.
 *
 * <p>Every method is asynchronous and does no I/O of its own on the caller's thread, so {@link SessionHost} may call
 * it under a session's lock, which keeps a session's record writes in order. Giving back twice is harmless to the
 * reservation (released by session id); the host calls {@link #ended} once per session.
 */
public final class SessionLedger {

    private static final Logger LOG = LoggerFactory.getLogger(SessionLedger.class);

    /** Counts ends by the status they leave the record in. */
    public interface EndCounter {
        void ended(SessionStatus status);
    }

    private final String nodeId;
    private final SessionDirectory directory;
    private final SessionRouter router;
    private final SessionQuota quota;
    private final EndCounter counter;
    private final SessionDrives drives;
    private final Clock clock;

    public SessionLedger(String nodeId, SessionDirectory directory, SessionRouter router, SessionQuota quota,
            EndCounter counter, SessionDrives drives, Clock clock) {
        this.drives = drives;
        this.nodeId = nodeId;
        this.directory = directory;
        this.router = router;
        this.quota = quota;
        this.counter = counter;
        this.clock = clock;
    }

    /** The session's record as it changes while it lives (pending, active). */
    public void publish(SessionInfo info) {
        logFailure(directory.publish(info).thenAccept(written -> {
            if (!written) {
                LOG.warn("session {}: its record names another node; node {} leaves it as it is", info.sessionId(),
                        nodeId);
            }
        }), "publish the record of", info.sessionId());
    }

    /**
     * This node rejoined the cluster (after a split or a pause) still holding the session: its record and its quota
     * place are written again, since the other side may have marked it lost and given the place back meanwhile. Its
     * reservation comes back with the node's next heartbeat.
     */
    public void reasserted(SessionInfo info) {
        publish(info);
        logFailure(quota.tryAcquire(info.ownerId(), info.sessionId(), info.estimatedMemoryMb(),
                SessionQuota.Limits.NONE),
                "take again the quota place of", info.sessionId());
    }

    /** The guacd connection exists: the session's reservation now stands for real memory. */
    public void activated(SessionInfo info) {
        publish(info);
        logFailure(router.activate(nodeId, info.sessionId()), "activate the reservation of", info.sessionId());
        LOG.info("session {} active: node={} protocol={}", info.sessionId(), nodeId, info.sessionType().wireName());
    }

    /**
     * A session of this node ended, with its final record {@code ended}; {@code end} tells how its tunnel ended
     * when it had one. The record stays readable until {@link #forget} is called.
     */
    public void ended(SessionInfo ended, TunnelEnd end) {
        publish(ended);
        giveBack(ended);
        drives.remove(ended.sessionId());
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
    }

    /**
     * A session of this node was deleted: its record goes at once; what it held is given back if it still lived.
     * Completes when the record is gone (or its removal failed, which is logged).
     */
    public CompletionStage<Void> deleted(SessionInfo info, boolean wasLive, String by) {
        CompletionStage<Void> forgotten = forget(info);
        if (wasLive) {
            giveBack(info);
            drives.remove(info.sessionId());
            counter.ended(SessionStatus.COMPLETED);
        }
        LOG.info("session {} deleted: node={} by={}", info.sessionId(), nodeId, by);
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
            counter.ended(SessionStatus.LOST);
        }
        if (!lost.isEmpty()) {
            LOG.info("{} sessions of node {} marked lost", lost.size(), ofNode);
        }
        return lost;
    }

    private void giveBack(SessionInfo info) {
        logFailure(router.release(nodeId, info.sessionId()), "release the reservation of", info.sessionId());
        logFailure(quota.release(info.ownerId(), info.sessionId()), "give back the quota place of",
                info.sessionId());
        if (!info.status().isLive()) {
            counter.ended(info.status());
        }
    }

    private static void logFailure(CompletionStage<?> stage, String what, String sessionId) {
        stage.exceptionally(error -> {
            LOG.warn("could not {} session {}: {}", what, sessionId, error.getMessage());
            return null;
        });
    }
}
