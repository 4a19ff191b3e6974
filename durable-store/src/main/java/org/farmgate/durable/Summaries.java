package org.farmgate.durable;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/** What the summary reports read: rustguac's shapes. */
public final class Summaries {

    private Summaries() {
    }

    public record UserTotal(@JsonProperty("user") String user, @JsonProperty("session_count") long sessionCount,
            @JsonProperty("total_hours") double totalHours, @JsonProperty("last_session") Instant lastSession) {
    }

    public record Summary(@JsonProperty("total_sessions") long totalSessions,
            @JsonProperty("total_hours") double totalHours, @JsonProperty("unique_users") long uniqueUsers,
            @JsonProperty("active_now") long activeNow) {
    }

    /**
     * What checking the audit chain found.
     *
     * @param firstBroken the first row whose hash or link does not hold; null when every row holds
     */
    public record ChainCheck(@JsonProperty("intact") boolean intact, @JsonProperty("rows") long rows,
            @JsonProperty("first_seq") Long firstSeq, @JsonProperty("head_seq") long headSeq,
            @JsonProperty("head_hash") String headHash, @JsonProperty("first_broken_seq") Long firstBroken,
            @JsonProperty("problem") String problem) {
    }

    /** What one purge removed. */
    public record Purged(@JsonProperty("history_rows") long historyRows, @JsonProperty("watcher_rows") long watcherRows,
            @JsonProperty("audit_rows") long auditRows) {
    }
}
