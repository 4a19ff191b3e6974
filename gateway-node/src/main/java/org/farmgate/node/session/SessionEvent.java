package org.farmgate.node.session;

import org.farmgate.model.SessionInfo;
import org.farmgate.model.Watcher;

/**
 * A step in a session's life, as the node that holds it (or, for {@link Lost}, the node that noticed) wrote it.
 * Each carries the record as written with the step, so a subscriber needs nothing else to keep history, count or
 * clean up. Per session they arrive in the order of its life: {@code Opened}, then {@code Attached} and
 * {@code Detached} as clients come and go (with watchers joining and leaving meanwhile), then exactly one of
 * {@code Ended}, {@code Deleted} or {@code Lost}; a deleted session that had already ended has both.
 */
public sealed interface SessionEvent {

    SessionInfo session();

    /** Placed on this node and waiting for its first WebSocket; {@code origin} says where it came from. */
    record Opened(SessionInfo session, Origin origin) implements SessionEvent {
    }

    /** A client is attached: the first, or one that came back to the held connection. */
    record Attached(SessionInfo session) implements SessionEvent {
    }

    /** The client went without a word; the session waits for one to come back. */
    record Detached(SessionInfo session, String why) implements SessionEvent {
    }

    /** Someone joined by a share link. */
    record WatcherJoined(SessionInfo session, Watcher watcher) implements SessionEvent {
    }

    /** A watcher's tunnel ended while the session went on; watchers of a session that ends leave with it. */
    record WatcherLeft(SessionInfo session, Watcher watcher, String why) implements SessionEvent {
    }

    /**
     * The session ended by itself or was ended by the gateway; {@code end} is its tunnel's end, or the gateway's
     * termination of a session that had no tunnel; null for a pending session that expired or failed to open.
     */
    record Ended(SessionInfo session, TunnelEnd end) implements SessionEvent {
    }

    /** Someone deleted it; {@code wasLive} when it had not ended before. */
    record Deleted(SessionInfo session, boolean wasLive, String by) implements SessionEvent {
    }

    /** Its node left the cluster, or its record named a node that does not hold it: marked lost by this node. */
    record Lost(SessionInfo session) implements SessionEvent {
    }
}
