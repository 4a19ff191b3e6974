package org.farmgate.model;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Where a session is in its life. Only {@link #PENDING} and {@link #ACTIVE} hold resources. */
public enum SessionStatus {
    /** Created; no WebSocket has attached yet, and no guacd connection exists. */
    PENDING,
    /** A WebSocket is attached and relaying to guacd. */
    ACTIVE,
    /** The tunnel ended normally (the user left, or the remote side logged out). */
    COMPLETED,
    /** The guacd handshake or the remote connection failed. */
    ERROR,
    /** No WebSocket attached before the pending time ran out. */
    EXPIRED,
    /** The node that held the session left the cluster. */
    LOST;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean isLive() {
        return this == PENDING || this == ACTIVE;
    }
}
