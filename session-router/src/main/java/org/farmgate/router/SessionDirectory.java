package org.farmgate.router;

import java.io.Serializable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;

/**
 * The non-secret record of every session in the cluster, by id. Only the node that runs a session writes its
 * record while it lives; after that node is gone, the cluster's coordinator marks its records {@code lost}. No
 * credential is ever part of a record.
 *
 * <p>Every write is an update the entry's owner applies, in one order, under these rules:
 * <ul>
 * <li>a write or removal names the node the record names, so no node overwrites or drops the record of a session
 *     another node runs;
 * <li>a record's {@link SessionInfo#revision} only grows: an older or equal one is refused, so a write overtaken by a
 *     later one (a republish racing the session's end) never puts the session back a step;
 * <li>an ended session never turns live again, but for one case: a {@code lost} mark is another node's inference,
 *     and the node that still holds the session, back from a split, writes its truth over it ({@link #reassert});
 *     an ordinary write that was merely late never does, or a dead node's last write would make a ghost;
 * <li>a removal leaves a tombstone, the last record at the highest revision there is, for {@link #TOMBSTONE_LIFE}:
 *     a write that was on its way when the record went (the retention's removal racing a republish) finds it and is
 *     refused, instead of leaving an ended record nothing would ever remove. Reads never see a tombstone.
 * </ul>
 */
public final class SessionDirectory {

    /** Longer than any write can be on its way: an update's retries give up well within it. */
    public static final Duration TOMBSTONE_LIFE = Duration.ofMinutes(2);
    private static final long TOMBSTONE = Long.MAX_VALUE;

    private static final Comparator<SessionInfo> OLDEST_FIRST = Comparator.comparing(SessionInfo::createdAt)
            .thenComparing(SessionInfo::sessionId);

    private final SharedMap<String, SessionInfo> records;

    public SessionDirectory(SharedMap<String, SessionInfo> records) {
        this.records = records;
    }

    /**
     * Writes the record of a session its node runs; false when the directory keeps what it has: another node's
     * record, a newer one, an end, or a tombstone.
     */
    public CompletionStage<Boolean> publish(SessionInfo info) {
        return records.update(info.sessionId(), new Write(info));
    }

    /**
     * The node that holds a live session writes its record again after rejoining the cluster: over a {@code lost}
     * mark too, whatever the mark's revision. False when the directory keeps what it has.
     */
    public CompletionStage<Boolean> reassert(SessionInfo info) {
        return records.update(info.sessionId(), new Reassert(info));
    }

    public CompletionStage<SessionInfo> find(String sessionId) {
        return records.get(sessionId).thenApply(info -> info == null || isTombstone(info) ? null : info);
    }

    /** Removes the record if it is still {@code expected}'s node's, leaving a tombstone; the record removed, or null. */
    public CompletionStage<SessionInfo> remove(SessionInfo expected) {
        return records.update(expected.sessionId(), new RemoveOwnedBy(expected.nodeId()));
    }

    /** Sessions owned by {@code ownerId}, or everyone's when null, oldest first. */
    public CompletionStage<List<SessionInfo>> list(String ownerId) {
        return records.query(new ByOwner(ownerId)).thenApply(list -> list.stream().sorted(OLDEST_FIRST)
                .toList());
    }

    /** Marks every live session of a departed node {@code lost}; returns the records it marked. */
    public CompletionStage<List<SessionInfo>> markLost(String nodeId, Instant at) {
        return liveOn(nodeId).thenCompose(ids -> markLost(ids, nodeId, at));
    }

    /** The sessions the directory calls live on {@code nodeId}. */
    public CompletionStage<List<String>> liveOn(String nodeId) {
        return records.query(new LiveOnNode(nodeId));
    }

    /**
     * Every live session's id, by the node its record names: one query for the whole cluster, where asking each node's
     * {@link #liveOn} would be one per node (the coordinator's census, {@code OrphanRecords}).
     */
    public CompletionStage<Map<String, List<String>>> liveByNode() {
        return records.query(new LiveAnywhere()).thenApply(live -> {
            Map<String, List<String>> byNode = new HashMap<>();
            for (Live one : live) {
                byNode.computeIfAbsent(one.nodeId(), node -> new ArrayList<>()).add(one.sessionId());
            }
            return byNode;
        });
    }

    /** Marks these sessions {@code lost} where their record is still live on {@code nodeId}; the records marked. */
    public CompletionStage<List<SessionInfo>> markLost(Collection<String> ids, String nodeId, Instant at) {
        CompletionStage<List<SessionInfo>> done = CompletableFuture.completedFuture(new ArrayList<>());
        for (String id : ids) {
            done = done.thenCompose(marked -> records.update(id, new MarkLost(nodeId, at)).thenApply(info -> {
                if (info != null) {
                    marked.add(info);
                }
                return marked;
            }));
        }
        return done;
    }

    private static boolean isTombstone(SessionInfo record) {
        return record.revision() == TOMBSTONE;
    }

    private record ByOwner(String ownerId) implements Query<SessionInfo, SessionInfo> {

        @Override
        public boolean matches(SessionInfo value) {
            return !isTombstone(value) && (ownerId == null || ownerId.equals(value.ownerId()));
        }

        @Override
        public SessionInfo project(SessionInfo value) {
            return value;
        }
    }

    private record LiveOnNode(String nodeId) implements Query<SessionInfo, String> {

        @Override
        public boolean matches(SessionInfo value) {
            return nodeId.equals(value.nodeId()) && value.status().isLive() && !isTombstone(value);
        }

        @Override
        public String project(SessionInfo value) {
            return value.sessionId();
        }
    }

    /** A live session and the node its record names. */
    private record Live(String sessionId, String nodeId) implements Serializable {
    }

    private record LiveAnywhere() implements Query<SessionInfo, Live> {

        @Override
        public boolean matches(SessionInfo value) {
            return value.status().isLive() && !isTombstone(value);
        }

        @Override
        public Live project(SessionInfo value) {
            return new Live(value.sessionId(), value.nodeId());
        }
    }

    private record Write(SessionInfo info) implements Update<SessionInfo, Boolean> {

        @Override
        public Outcome<SessionInfo, Boolean> apply(SessionInfo current) {
            if (current == null) {
                return Outcome.store(info, true);
            }
            boolean older = info.revision() <= current.revision();
            boolean revived = !current.status().isLive() && info.status().isLive();
            return !current.nodeId().equals(info.nodeId()) || older || revived ? Outcome.keep(false)
                    : Outcome.store(info, true);
        }
    }

    private record Reassert(SessionInfo info) implements Update<SessionInfo, Boolean> {

        @Override
        public Outcome<SessionInfo, Boolean> apply(SessionInfo current) {
            if (current != null && current.nodeId().equals(info.nodeId()) && !isTombstone(current)
                    && current.status() == SessionStatus.LOST && info.status().isLive()) {
                return Outcome.store(info, true);
            }
            return new Write(info).apply(current);
        }
    }

    private record RemoveOwnedBy(String nodeId) implements Update<SessionInfo, SessionInfo> {

        @Override
        public Outcome<SessionInfo, SessionInfo> apply(SessionInfo current) {
            if (current == null || isTombstone(current) || !current.nodeId().equals(nodeId)) {
                return Outcome.keep(null);
            }
            return Outcome.storeFor(current.withRevision(TOMBSTONE), TOMBSTONE_LIFE, current);
        }
    }

    private record MarkLost(String nodeId, Instant at) implements Update<SessionInfo, SessionInfo> {

        @Override
        public Outcome<SessionInfo, SessionInfo> apply(SessionInfo current) {
            if (current == null || !current.status().isLive() || !current.nodeId().equals(nodeId)
                    || isTombstone(current)) {
                return Outcome.keep(null);
            }
            SessionInfo lost = current.ended(SessionStatus.LOST, at, "node " + current.nodeId() + " left the cluster");
            return Outcome.store(lost, lost);
        }
    }
}
