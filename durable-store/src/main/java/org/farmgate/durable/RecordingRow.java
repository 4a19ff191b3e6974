package org.farmgate.durable;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;

/**
 * A session's recording as the index has it, with whose session it was (from the session's history row, which it
 * belongs to). {@code state}: {@code recording} while its node uploads it, {@code complete}, {@code incomplete} (its
 * node was lost, or storage could not keep up: what was uploaded stands, and {@code state_detail} says why), or
 * {@code deleted}.
 */
public record RecordingRow(
        @JsonProperty("session_id") String sessionId,
        @JsonProperty("storage_key") String storageKey,
        @JsonIgnore String uploadId,
        @JsonProperty("node_id") String nodeId,
        @JsonProperty("started_at") Instant startedAt,
        @JsonProperty("ended_at") Instant endedAt,
        @JsonProperty("keys_included") boolean keysIncluded,
        @JsonIgnore List<String> partTags,
        @JsonProperty("size_bytes") long sizeBytes,
        @JsonProperty("state") String state,
        @JsonProperty("state_detail") String stateDetail,
        @JsonProperty("session_type") String sessionType,
        @JsonProperty("hostname") String hostname,
        @JsonProperty("created_by") String createdBy,
        @JsonProperty("created_by_email") String createdByEmail,
        @JsonProperty("owner_id") String ownerId,
        @JsonProperty("address_book_entry") String entry,
        @JsonProperty("address_book_folder") String folder,
        @JsonProperty("entry_display_name") String displayName,
        @JsonProperty("joins") List<Join> joins) {

    /** Someone who joined the session while it was recorded: a watcher by a share link, or its user coming back. */
    public record Join(@JsonProperty("who") String who, @JsonProperty("at") Instant at,
            @JsonProperty("share") boolean share) {

        static String line(Instant at, String who, boolean share) {
            return at + "\t" + who.replace('\t', ' ').replace('\n', ' ') + "\t" + (share ? "share" : "attach");
        }

        static List<Join> parse(String lines) {
            if (lines == null || lines.isEmpty()) {
                return List.of();
            }
            return Arrays.stream(lines.split("\n")).map(line -> line.split("\t", 3)).filter(f -> f.length == 3)
                    .map(f -> new Join(f[1], Instant.parse(f[0]), f[2].equals("share"))).toList();
        }
    }

    public static final String RECORDING = "recording";
    public static final String COMPLETE = "complete";
    public static final String INCOMPLETE = "incomplete";
    public static final String DELETED = "deleted";

    public RecordingRow {
        partTags = partTags == null ? List.of() : List.copyOf(partTags);
        joins = joins == null ? List.of() : List.copyOf(joins);
    }

    /** rustguac's name of a recording: its file's. */
    @JsonProperty("name")
    public String name() {
        return sessionId + ".guac";
    }

    @JsonProperty("parts")
    public int parts() {
        return partTags.size();
    }
}
