package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The recordings index, written from facts and read for the API, the takeover of uploads whose node is gone, and
 * retention. Every write is idempotent: a part is appended only as the next one, an end lands only on a recording
 * still running, a deletion once.
 */
final class Recordings {

    private static final String SELECT = "SELECT r.session_id, r.storage_key, r.upload_id, r.node_id, r.started_at, "
            + "r.ended_at, r.keys_included, r.part_tags, r.size_bytes, r.state, r.state_detail, h.session_type, "
            + "h.hostname, h.created_by, h.created_by_email, h.owner_id, h.address_book_entry, "
            + "h.address_book_folder, h.entry_display_name, r.joins FROM session_recordings r "
            + "LEFT JOIN session_history h ON h.session_id = r.session_id";

    private final Statements statements;

    Recordings(Statements statements) {
        this.statements = statements;
    }

    void started(Connection connection, Fact.RecordingStarted started) throws SQLException {
        int inserted = statements.update(connection, "INSERT INTO session_recordings (session_id, storage_key, "
                + "upload_id, node_id, started_at, keys_included, state) VALUES (?, ?, ?, ?, ?, ?, ?) "
                + "ON CONFLICT DO NOTHING", started.sessionId(), started.storageKey(), started.uploadId(),
                started.nodeId(), started.startedAt(), started.keysIncluded(), RecordingRow.RECORDING);
        if (inserted > 0) {
            statements.update(connection, "UPDATE session_history SET recording_file = ? WHERE session_id = ?",
                    started.sessionId() + ".guac", started.sessionId());
        }
    }

    void part(Connection connection, Fact.RecordingPart part) throws SQLException {
        statements.update(connection, "UPDATE session_recordings SET part_tags = part_tags || ?, "
                + "part_count = part_count + 1, size_bytes = size_bytes + ? WHERE session_id = ? AND part_count = ? "
                + "AND state = ?", part.tag() + "\n", part.bytes(), part.sessionId(), part.number() - 1,
                RecordingRow.RECORDING);
    }

    /** A join once (a fact landing twice finds its line there), while the column has room. */
    void joined(Connection connection, Fact.RecordingJoined joined) throws SQLException {
        String line = RecordingRow.Join.line(joined.at(), joined.who(), joined.shared());
        statements.update(connection, "UPDATE session_recordings SET joins = joins || ? WHERE session_id = ? "
                + "AND POSITION(? IN joins) = 0 AND LENGTH(joins) + ? <= 8192", line + "\n", joined.sessionId(),
                line, line.length() + 1);
    }

    void ended(Connection connection, Fact.RecordingEnded ended) throws SQLException {
        statements.update(connection, "UPDATE session_recordings SET ended_at = ?, state = ?, state_detail = ?, "
                + "size_bytes = CASE WHEN ? >= 0 THEN ? ELSE size_bytes END WHERE session_id = ? AND state = ?",
                ended.endedAt(), ended.complete() ? RecordingRow.COMPLETE : RecordingRow.INCOMPLETE, ended.detail(),
                ended.sizeBytes(), ended.sizeBytes(), ended.sessionId(), RecordingRow.RECORDING);
    }

    void deleted(Connection connection, Fact.RecordingDeleted deleted) throws SQLException {
        statements.update(connection, "UPDATE session_recordings SET state = ?, deleted_at = ?, deleted_by = ?, "
                + "state_detail = ? WHERE session_id = ? AND deleted_at IS NULL", RecordingRow.DELETED, deleted.at(),
                deleted.by(), deleted.why(), deleted.sessionId());
    }

    Page<RecordingRow> list(Connection connection, RecordingFilter filter) throws SQLException {
        StringBuilder where = new StringBuilder(" WHERE 1 = 1");
        List<Object> values = new ArrayList<>();
        if (filter.user() != null) {
            where.append(" AND (h.created_by = ? OR h.created_by_email = ? OR h.owner_id = ?)");
            values.addAll(List.of(filter.user(), filter.user(), filter.user()));
        }
        if (filter.entry() != null) {
            where.append(" AND h.address_book_entry = ?");
            values.add(filter.entry());
        }
        if (filter.state() != null) {
            where.append(" AND r.state = ?");
            values.add(filter.state());
        } else {
            where.append(" AND r.state <> ?");
            values.add(RecordingRow.DELETED);
        }
        if (filter.from() != null) {
            where.append(" AND r.started_at >= ?");
            values.add(filter.from());
        }
        if (filter.to() != null) {
            where.append(" AND r.started_at < ?");
            values.add(filter.to());
        }
        if (filter.ownerId() != null) {
            where.append(" AND h.owner_id = ?");
            values.add(filter.ownerId());
        }
        long total;
        try (PreparedStatement count = statements.prepare(connection, "SELECT COUNT(*) FROM session_recordings r "
                + "LEFT JOIN session_history h ON h.session_id = r.session_id" + where, values.toArray());
                ResultSet rows = count.executeQuery()) {
            rows.next();
            total = rows.getLong(1);
        }
        List<Object> paged = new ArrayList<>(values);
        paged.add(filter.limit());
        paged.add(filter.offset());
        return new Page<>(select(connection, SELECT + where + " ORDER BY r.started_at DESC, r.session_id LIMIT ? "
                + "OFFSET ?", paged.toArray()), total, filter.limit(), filter.offset());
    }

    Optional<RecordingRow> find(Connection connection, String sessionId) throws SQLException {
        return select(connection, SELECT + " WHERE r.session_id = ?", sessionId).stream().findFirst();
    }

    /** Recordings still marked running whose node is not among {@code liveNodes}, started before {@code before}. */
    List<RecordingRow> orphaned(Connection connection, Set<String> liveNodes, Instant before) throws SQLException {
        List<RecordingRow> out = new ArrayList<>();
        for (RecordingRow row : select(connection, SELECT + " WHERE r.state = ? AND r.started_at < ? ORDER BY "
                + "r.started_at", RecordingRow.RECORDING, before)) {
            if (!liveNodes.contains(row.nodeId())) {
                out.add(row);
            }
        }
        return out;
    }

    /**
     * What retention removes, oldest first: ended recordings started before {@code before}, those beyond the newest
     * {@code maxCount} (0: no limit), and per entry those beyond the entry's own limit.
     */
    List<RecordingRow> expired(Connection connection, Instant before, int maxCount, Map<String, Integer> perEntry)
            throws SQLException {
        Map<String, RecordingRow> out = new LinkedHashMap<>();
        List<RecordingRow> ended = select(connection, SELECT + " WHERE r.state IN (?, ?) ORDER BY r.started_at DESC, "
                + "r.session_id", RecordingRow.COMPLETE, RecordingRow.INCOMPLETE);
        Map<String, Integer> seenPerEntry = new LinkedHashMap<>();
        for (int i = 0; i < ended.size(); i++) {
            RecordingRow row = ended.get(i);
            boolean old = before != null && row.startedAt().isBefore(before);
            boolean beyondCount = maxCount > 0 && i >= maxCount;
            boolean beyondEntry = false;
            if (row.entry() != null) {
                String key = row.folder() + "/" + row.entry();
                int seen = seenPerEntry.merge(key, 1, Integer::sum);
                Integer limit = perEntry.get(key);
                beyondEntry = limit != null && limit > 0 && seen > limit;
            }
            if (old || beyondCount || beyondEntry) {
                out.put(row.sessionId(), row);
            }
        }
        List<RecordingRow> oldestFirst = new ArrayList<>(out.values());
        java.util.Collections.reverse(oldestFirst);
        return oldestFirst;
    }

    private List<RecordingRow> select(Connection connection, String sql, Object... values) throws SQLException {
        List<RecordingRow> out = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, sql, values);
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                String tags = rows.getString(8);
                out.add(new RecordingRow(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
                        Reports.instant(rows, 5), Reports.instant(rows, 6), rows.getBoolean(7),
                        tags == null || tags.isEmpty() ? List.of() : Arrays.asList(tags.split("\n")),
                        rows.getLong(9), rows.getString(10), rows.getString(11), rows.getString(12),
                        rows.getString(13), rows.getString(14), rows.getString(15), rows.getString(16),
                        rows.getString(17), rows.getString(18), rows.getString(19),
                        RecordingRow.Join.parse(rows.getString(20))));
            }
        }
        return out;
    }
}
