package org.farmgate.node.accountability;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Fact;
import org.farmgate.durable.SessionRow;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.model.Watcher;
import org.farmgate.node.session.EntryRef;
import org.farmgate.node.session.Origin;
import org.farmgate.node.session.SessionEvent;
import org.farmgate.node.session.TunnelEnd;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * Session history from the steps of sessions' lives ({@link SessionEvent}): a row when a session opens, closed when
 * it ends, is deleted or is lost; a row per watcher's join. Every node records what it hears: the steps of its own
 * sessions, and the {@code lost} marks it made as the coordinator. A row is closed once whichever close lands first
 * (the store's rule), so a session both ended by its node and marked lost by the coordinator has one end.
 *
 * <p>Where the session came from (the client's address, its entry) is known only when it opens; it is held here
 * until the session's end, so that a close carries the whole row (a close whose opening never landed still leaves
 * one).
 */
public final class SessionHistory {

    private final DurableStore store;
    private final Clock clock;
    private final Map<String, Origin> origins = new ConcurrentHashMap<>();

    public SessionHistory(DurableStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    public void onEvent(SessionEvent event) {
        SessionInfo info = event.session();
        if (event instanceof SessionEvent.Opened opened) {
            origins.put(info.sessionId(), opened.origin());
            store.record(new Fact.SessionOpened(row(info, opened.origin())));
        } else if (event instanceof SessionEvent.Attached) {
            store.record(new Fact.SessionAttached(info.sessionId()));
        } else if (event instanceof SessionEvent.WatcherJoined joined) {
            Watcher watcher = joined.watcher();
            store.record(new Fact.WatcherJoined(joinId(info, watcher), info.sessionId(), watcher.name(),
                    watcher.shareId(), watcher.readOnly(), watcher.since()));
        } else if (event instanceof SessionEvent.WatcherLeft left) {
            store.record(new Fact.WatcherLeft(joinId(info, left.watcher()), clock.instant(), left.why()));
        } else if (event instanceof SessionEvent.Ended ended) {
            TunnelEnd end = ended.end();
            close(info, info.endedAt(), info.status().wireName(), reason(info, end), null, info.endReason(),
                    end == null ? null : end.bytesToClient(), end == null ? null : end.bytesToGuacd());
        } else if (event instanceof SessionEvent.Deleted deleted) {
            if (deleted.wasLive()) {
                close(info, clock.instant(), SessionStatus.COMPLETED.wireName(), "ended", deleted.by(),
                        "deleted by " + deleted.by(), null, null);
            }
            origins.remove(info.sessionId());
        } else if (event instanceof SessionEvent.Lost) {
            close(info, info.endedAt() == null ? clock.instant() : info.endedAt(), SessionStatus.LOST.wireName(),
                    "lost", null, info.endReason(), null, null);
        }
    }

    private void close(SessionInfo info, java.time.Instant at, String status, String reason, String by,
            String detail, Long toClient, Long fromClient) {
        Origin origin = origins.remove(info.sessionId());
        store.record(new Fact.SessionClosed(row(info, origin == null ? Origin.UNKNOWN : origin), at, status, reason,
                by, detail, toClient, fromClient));
    }

    /**
     * Why it ended, in a word a report can group by: {@code completed} (the user or the machine ended it),
     * {@code expired} (never attached, or ran its longest), {@code drained} (its node was stopped), {@code error},
     * or {@code ended} (by someone else: a delete, which the audit log names).
     */
    static String reason(SessionInfo info, TunnelEnd end) {
        if (info.status() == SessionStatus.EXPIRED) {
            return "expired";
        }
        if (info.status() == SessionStatus.ERROR) {
            return "error";
        }
        if (info.status() == SessionStatus.LOST) {
            return "lost";
        }
        if (end != null && end.cause() == TunnelEnd.Cause.TERMINATED) {
            if (end.status() == GuacamoleStatus.SESSION_TIMEOUT.code()) {
                return "expired";
            }
            if (end.status() == GuacamoleStatus.SERVER_BUSY.code()) {
                return "drained";
            }
            return "ended";
        }
        return "completed";
    }

    static SessionRow row(SessionInfo info, Origin origin) {
        EntryRef entry = origin.entry();
        return SessionRow.opened(info.sessionId(), info.sessionType().wireName(), info.hostname(), info.port(),
                info.username(), info.createdBy(), entry == null ? null : entry.name(),
                entry == null ? null : entry.folder(), origin.displayName(), info.createdAt(),
                info.status().isLive() ? info.status().wireName() : SessionStatus.PENDING.wireName(), info.ownerId(),
                info.createdByEmail(), info.nodeId(), origin.clientAddress());
    }

    /** The same join gives the same id on every node and at every retry. */
    private static String joinId(SessionInfo info, Watcher watcher) {
        String key = info.sessionId() + "\n" + watcher.shareId() + "\n" + watcher.name() + "\n" + watcher.since();
        return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
    }
}
