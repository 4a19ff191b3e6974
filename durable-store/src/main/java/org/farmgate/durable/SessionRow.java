package org.farmgate.durable;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A session's history row: rustguac 1.9's columns (so that its reports keep their meaning), then what a cluster
 * adds. Never a credential: the target's username is what rustguac keeps too, its password never.
 *
 * @param endReason {@code completed}, {@code ended} (by someone: {@code endedBy}), {@code expired}, {@code lost}
 *     (with its node), {@code drained} (its node was stopped) or {@code error}; {@code endDetail} says more
 * @param bytesFromClient what the browser sent towards guacd
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SessionRow(
        @JsonProperty("session_id") String sessionId,
        @JsonProperty("session_type") String sessionType,
        @JsonProperty("hostname") String hostname,
        @JsonProperty("port") Integer port,
        @JsonProperty("username") String username,
        @JsonProperty("created_by") String createdBy,
        @JsonProperty("address_book_entry") String entry,
        @JsonProperty("address_book_folder") String folder,
        @JsonProperty("entry_display_name") String displayName,
        @JsonProperty("started_at") Instant startedAt,
        @JsonProperty("ended_at") Instant endedAt,
        @JsonProperty("duration_secs") Long durationSecs,
        @JsonProperty("recording_file") String recordingFile,
        @JsonProperty("status") String status,
        @JsonProperty("owner_id") String ownerId,
        @JsonProperty("created_by_email") String createdByEmail,
        @JsonProperty("node_id") String nodeId,
        @JsonProperty("client_address") String clientAddress,
        @JsonProperty("end_reason") String endReason,
        @JsonProperty("ended_by") String endedBy,
        @JsonProperty("end_detail") String endDetail,
        @JsonProperty("bytes_to_client") Long bytesToClient,
        @JsonProperty("bytes_from_client") Long bytesFromClient,
        @JsonProperty("watchers") int watchers) {

    public SessionRow {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(sessionType, "sessionType");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(ownerId, "ownerId");
        Objects.requireNonNull(nodeId, "nodeId");
        startedAt = Fact.micros(startedAt);
        endedAt = endedAt == null ? null : Fact.micros(endedAt);
        hostname = hostname == null ? "" : hostname;
        username = username == null ? "" : username;
        createdBy = createdBy == null ? "" : createdBy;
    }

    /** A row as opened: live, nothing of its end known. */
    public static SessionRow opened(String sessionId, String sessionType, String hostname, Integer port,
            String username, String createdBy, String entry, String folder, String displayName, Instant startedAt,
            String status, String ownerId, String createdByEmail, String nodeId, String clientAddress) {
        return new SessionRow(sessionId, sessionType, hostname, port, username, createdBy, entry, folder,
                displayName, startedAt, null, null, null, status, ownerId, createdByEmail, nodeId, clientAddress,
                null, null, null, null, null, 0);
    }
}
