package org.farmgate.model;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.io.Serializable;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What anyone may know about a session: the API's SessionInfo and the session directory's record. It never holds a
 * credential, so it may travel anywhere (responses, logs, cluster maps).
 *
 * @param createdBy the name of the token (or person) that created it, as shown
 * @param ownerId whom it belongs to: the creating token's id, never reused, unlike a name (a new token under a
 *     revoked one's name must not inherit its sessions)
 * @param endReason why a finished session ended, e.g. {@code "guacd error 769: Aborted. See logs."}; null while live
 * @param watchers who is attached through a share link now
 * @param createdByEmail the e-mail address of the person who created it, when a person signed in did (OpenID
 *     Connect); their subject is in {@code ownerId}
 * @param revision the record's place in the session's life: 1 when opened, one more with every step (a client
 *     attached or gone, a watcher joined or gone, the end, a {@code lost} mark). The directory refuses an older one,
 *     so that a write overtaken by a later one never puts the session back a step; history de-duplicates on it.
 * @param recorded its display is recorded (decided where it was created, by the recording policy and its entry):
 *     what the page tells its user before it starts
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(value = "ws_url", allowGetters = true)
public record SessionInfo(
        @JsonProperty("session_id") String sessionId,
        @JsonProperty("session_type") Protocol sessionType,
        @JsonProperty("status") SessionStatus status,
        @JsonProperty("created_at") Instant createdAt,
        @JsonProperty("hostname") String hostname,
        @JsonProperty("port") int port,
        @JsonProperty("username") String username,
        @JsonProperty("created_by") String createdBy,
        @JsonProperty("owner_id") String ownerId,
        @JsonProperty("active_connections") int activeConnections,
        @JsonProperty("node_id") String nodeId,
        @JsonProperty("estimated_memory_mb") int estimatedMemoryMb,
        @JsonProperty("ended_at") Instant endedAt,
        @JsonProperty("end_reason") String endReason,
        @JsonProperty("watchers") @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Watcher> watchers,
        @JsonProperty("created_by_email") String createdByEmail,
        @JsonProperty("revision") long revision,
        @JsonProperty("recorded") @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        @JsonSetter(nulls = Nulls.AS_EMPTY) boolean recorded)
        implements Serializable {

    public SessionInfo {
        watchers = watchers == null ? List.of() : List.copyOf(watchers);
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(sessionType, "sessionType");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(createdAt, "createdAt");
    }

    public SessionInfo(String sessionId, Protocol sessionType, SessionStatus status, Instant createdAt,
            String hostname, int port, String username, String createdBy, String ownerId, int activeConnections,
            String nodeId, int estimatedMemoryMb, Instant endedAt, String endReason) {
        this(sessionId, sessionType, status, createdAt, hostname, port, username, createdBy, ownerId,
                activeConnections, nodeId, estimatedMemoryMb, endedAt, endReason, List.of(), null, 1, false);
    }

    /** Where the browser attaches its WebSocket. */
    @JsonProperty("ws_url")
    public String wsUrl() {
        return "/ws/" + sessionId;
    }

    public SessionInfo attached() {
        return new SessionInfo(sessionId, sessionType, SessionStatus.ACTIVE, createdAt, hostname, port, username,
                createdBy, ownerId, 1 + watchers.size(), nodeId, estimatedMemoryMb, null, null, watchers, createdByEmail,
                revision + 1, recorded);
    }

    /** Live, with no client attached for now: its guacd connection is held for one to join again. */
    public SessionInfo detached() {
        return new SessionInfo(sessionId, sessionType, SessionStatus.ACTIVE, createdAt, hostname, port, username,
                createdBy, ownerId, watchers.size(), nodeId, estimatedMemoryMb, null, null, watchers, createdByEmail,
                revision + 1, recorded);
    }

    /** The same session with these watchers; the count of connections follows. */
    public SessionInfo watchedBy(List<Watcher> now) {
        int owner = activeConnections - watchers.size();
        return new SessionInfo(sessionId, sessionType, status, createdAt, hostname, port, username, createdBy,
                ownerId, owner + now.size(), nodeId, estimatedMemoryMb, endedAt, endReason, now, createdByEmail,
                revision + 1, recorded);
    }

    public SessionInfo ended(SessionStatus finalStatus, Instant at, String reason) {
        if (finalStatus.isLive()) {
            throw new IllegalArgumentException("not a final status: " + finalStatus);
        }
        return new SessionInfo(sessionId, sessionType, finalStatus, createdAt, hostname, port, username, createdBy,
                ownerId, 0, nodeId, estimatedMemoryMb, at, reason, List.of(), createdByEmail, revision + 1,
                recorded);
    }

    /** The same record under another revision (the directory's tombstone takes the highest there is). */
    public SessionInfo withRevision(long value) {
        return new SessionInfo(sessionId, sessionType, status, createdAt, hostname, port, username, createdBy,
                ownerId, activeConnections, nodeId, estimatedMemoryMb, endedAt, endReason, watchers, createdByEmail,
                value, recorded);
    }
}
