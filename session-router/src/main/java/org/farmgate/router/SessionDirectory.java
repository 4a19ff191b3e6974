package org.farmgate.router;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Predicate;
import org.farmgate.model.SessionInfo;

/**
 * The non-secret record of every session, by id. Only the node that runs a session writes its record, so writes
 * never race; any node reads. Backed by a plain {@link ConcurrentMap}: node-local on a single node, a map every
 * member shares in a cluster.
 */
public final class SessionDirectory {

    private final ConcurrentMap<String, SessionInfo> records;

    public SessionDirectory(ConcurrentMap<String, SessionInfo> records) {
        this.records = records;
    }

    public void publish(SessionInfo info) {
        records.put(info.sessionId(), info);
    }

    public Optional<SessionInfo> find(String sessionId) {
        return Optional.ofNullable(records.get(sessionId));
    }

    public void remove(String sessionId) {
        records.remove(sessionId);
    }

    /** Matching records, oldest first. */
    public List<SessionInfo> list(Predicate<SessionInfo> filter) {
        return records.values().stream()
                .filter(filter)
                .sorted(Comparator.comparing(SessionInfo::createdAt).thenComparing(SessionInfo::sessionId))
                .toList();
    }

    public long count(Predicate<SessionInfo> filter) {
        return records.values().stream().filter(filter).count();
    }
}
