package org.farmgate.router;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;

/**
 * The non-secret record of every session in the cluster, by id. Only the node that runs a session writes its
 * record while it lives; after that node is gone, the cluster's coordinator marks its records {@code lost}. Every
 * write and removal is conditional on the node the record names, so that no node ever overwrites or drops the
 * record of a session another node runs. No credential is ever part of a record.
 */
public final class SessionDirectory {

    private static final Comparator<SessionInfo> OLDEST_FIRST = Comparator.comparing(SessionInfo::createdAt)
            .thenComparing(SessionInfo::sessionId);

    private final SharedMap<String, SessionInfo> records;

    public SessionDirectory(SharedMap<String, SessionInfo> records) {
        this.records = records;
    }

    /** Writes the record of a session its node runs; false when the record belongs to another node. */
    public CompletionStage<Boolean> publish(SessionInfo info) {
        return records.update(info.sessionId(), new Write(info));
    }

    public CompletionStage<SessionInfo> find(String sessionId) {
        return records.get(sessionId);
    }

    /** Removes the record if it is still {@code expected}'s node's; the record removed, or null. */
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

    private record ByOwner(String ownerId) implements Query<SessionInfo, SessionInfo> {

        @Override
        public boolean matches(SessionInfo value) {
            return ownerId == null || ownerId.equals(value.ownerId());
        }

        @Override
        public SessionInfo project(SessionInfo value) {
            return value;
        }
    }

    private record LiveOnNode(String nodeId) implements Query<SessionInfo, String> {

        @Override
        public boolean matches(SessionInfo value) {
            return nodeId.equals(value.nodeId()) && value.status().isLive();
        }

        @Override
        public String project(SessionInfo value) {
            return value.sessionId();
        }
    }

    private record Write(SessionInfo info) implements Update<SessionInfo, Boolean> {

        @Override
        public Outcome<SessionInfo, Boolean> apply(SessionInfo current) {
            return current == null || current.nodeId().equals(info.nodeId()) ? Outcome.store(info, true)
                    : Outcome.keep(false);
        }
    }

    private record RemoveOwnedBy(String nodeId) implements Update<SessionInfo, SessionInfo> {

        @Override
        public Outcome<SessionInfo, SessionInfo> apply(SessionInfo current) {
            return current != null && current.nodeId().equals(nodeId) ? Outcome.store(null, current)
                    : Outcome.keep(null);
        }
    }

    private record MarkLost(String nodeId, Instant at) implements Update<SessionInfo, SessionInfo> {

        @Override
        public Outcome<SessionInfo, SessionInfo> apply(SessionInfo current) {
            if (current == null || !current.status().isLive() || !current.nodeId().equals(nodeId)) {
                return Outcome.keep(null);
            }
            SessionInfo lost = current.ended(SessionStatus.LOST, at, "node " + current.nodeId() + " left the cluster");
            return Outcome.store(lost, lost);
        }
    }
}
