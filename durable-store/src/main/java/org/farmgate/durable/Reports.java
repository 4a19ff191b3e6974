package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.farmgate.durable.Summaries.ChainCheck;
import org.farmgate.durable.Summaries.Summary;
import org.farmgate.durable.Summaries.UserTotal;

/**
 * The reads behind the reports and the audit pages: rustguac's reports over the history rows, the audit log paged,
 * and the chain checked. Every filter value is a bound parameter; LIKE patterns have their wildcards escaped, so a
 * {@code %} typed in a filter matches a {@code %}.
 */
final class Reports {

    private static final String ROW_COLUMNS = "session_id, session_type, hostname, port, username, created_by, "
            + "address_book_entry, address_book_folder, entry_display_name, started_at, ended_at, duration_secs, "
            + "recording_file, status, owner_id, created_by_email, node_id, client_address, end_reason, ended_by, "
            + "end_detail, bytes_to_client, bytes_from_client, watchers";
    private static final String AUDIT_COLUMNS = "seq, event_id, at, action, outcome, actor_id, actor_name, "
            + "actor_role, client_address, target, detail, node_id, prev_hash, hash";

    private final Statements statements;

    Reports(Statements statements) {
        this.statements = statements;
    }

    Page<SessionRow> sessions(Connection connection, SessionFilter filter) throws SQLException {
        Where where = sessionWhere(filter);
        long total = filter.before() == null ? count(connection, "session_history", where) : -1;
        Where paged = filter.before() == null ? where : where.and("(started_at < ? OR (started_at = ? AND "
                + "session_id < ?))", filter.before().startedAt(), filter.before().startedAt(),
                filter.before().sessionId());
        List<Object> values = new ArrayList<>(paged.values);
        values.add(filter.limit());
        values.add(filter.offset());
        List<SessionRow> rows = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, "SELECT " + ROW_COLUMNS
                + " FROM session_history" + paged.sql() + " ORDER BY started_at DESC, session_id DESC LIMIT ? OFFSET ?",
                values.toArray()); ResultSet result = select.executeQuery()) {
            while (result.next()) {
                rows.add(sessionRow(result));
            }
        }
        return new Page<>(rows, total, filter.limit(), filter.offset());
    }

    List<UserTotal> topUsers(Connection connection, SessionFilter filter, int limit) throws SQLException {
        if (wholeDays(filter)) {
            return topUsersByDay(connection, filter, limit);
        }
        Where where = sessionWhere(filter);
        List<Object> values = new ArrayList<>(where.values);
        values.add(limit);
        List<UserTotal> out = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, "SELECT created_by, COUNT(*), "
                + "COALESCE(SUM(duration_secs), 0), MAX(started_at) FROM session_history" + where.sql()
                + " GROUP BY created_by ORDER BY COUNT(*) DESC, created_by LIMIT ?", values.toArray());
                ResultSet result = select.executeQuery()) {
            while (result.next()) {
                out.add(new UserTotal(result.getString(1), result.getLong(2), hours(result.getLong(3)),
                        instant(result, 4)));
            }
        }
        return out;
    }

    Summary summary(Connection connection, SessionFilter filter) throws SQLException {
        if (wholeDays(filter)) {
            return summaryByDay(connection, filter);
        }
        Where where = sessionWhere(filter);
        try (PreparedStatement select = statements.prepare(connection, "SELECT COUNT(*), "
                + "COALESCE(SUM(duration_secs), 0), COUNT(DISTINCT created_by), "
                + "COALESCE(SUM(CASE WHEN ended_at IS NULL THEN 1 ELSE 0 END), 0) FROM session_history" + where.sql(),
                where.values.toArray()); ResultSet result = select.executeQuery()) {
            result.next();
            return new Summary(result.getLong(1), hours(result.getLong(2)), result.getLong(3), result.getLong(4));
        }
    }

    /**
     * Whether the daily rollup answers for {@code filter}: bounds on whole days (UTC), and no filter the rollup does
     * not keep (a user's or entry's name in part, an owner). It holds what the rows hold, kept by the writer as rows
     * open and close, so both ways give the same numbers; the rollup reads a row per day, creator and protocol.
     */
    private static boolean wholeDays(SessionFilter filter) {
        return filter.user() == null && filter.entry() == null && filter.ownerId() == null && midnight(filter.from())
                && midnight(filter.to());
    }

    private static boolean midnight(Instant at) {
        return at == null || at.getEpochSecond() % 86_400 == 0 && at.getNano() == 0;
    }

    private static Where dayWhere(SessionFilter filter) {
        Where where = new Where();
        if (filter.type() != null) {
            where = where.and("session_type = ?", filter.type());
        }
        if (filter.from() != null) {
            where = where.and("on_day >= ?", LocalDate.ofInstant(filter.from(), ZoneOffset.UTC));
        }
        if (filter.to() != null) {
            where = where.and("on_day < ?", LocalDate.ofInstant(filter.to(), ZoneOffset.UTC));
        }
        return where;
    }

    private Summary summaryByDay(Connection connection, SessionFilter filter) throws SQLException {
        Where where = dayWhere(filter);
        long sessions;
        long seconds;
        long users;
        try (PreparedStatement select = statements.prepare(connection, "SELECT COALESCE(SUM(sessions), 0), "
                + "COALESCE(SUM(seconds), 0), COUNT(DISTINCT created_by) FROM history_daily" + where.sql(),
                where.values.toArray()); ResultSet result = select.executeQuery()) {
            result.next();
            sessions = result.getLong(1);
            seconds = result.getLong(2);
            users = result.getLong(3);
        }
        Where open = sessionWhere(filter).and("ended_at IS NULL");
        return new Summary(sessions, hours(seconds), users, count(connection, "session_history", open));
    }

    private List<UserTotal> topUsersByDay(Connection connection, SessionFilter filter, int limit) throws SQLException {
        Where where = dayWhere(filter);
        List<Object> values = new ArrayList<>(where.values);
        values.add(limit);
        List<UserTotal> out = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, "SELECT created_by, SUM(sessions), "
                + "SUM(seconds), MAX(last_started) FROM history_daily" + where.sql() + " GROUP BY created_by "
                + "ORDER BY SUM(sessions) DESC, created_by LIMIT ?", values.toArray());
                ResultSet result = select.executeQuery()) {
            while (result.next()) {
                out.add(new UserTotal(result.getString(1), result.getLong(2), hours(result.getLong(3)),
                        instant(result, 4)));
            }
        }
        return out;
    }

    Page<AuditRow> audit(Connection connection, AuditFilter filter) throws SQLException {
        Where where = new Where();
        if (filter.actor() != null) {
            where = where.and("(actor_id = ? OR actor_name = ?)", filter.actor(), filter.actor());
        }
        if (filter.action() != null) {
            where = filter.action().endsWith(".")
                    ? where.and("action LIKE ? ESCAPE '\\'", likePrefix(filter.action()))
                    : where.and("action = ?", filter.action());
        }
        if (filter.outcome() != null) {
            where = where.and("outcome = ?", filter.outcome());
        }
        if (filter.target() != null) {
            where = where.and("LOWER(target) LIKE ? ESCAPE '\\'", likeAnywhere(filter.target()));
        }
        if (filter.from() != null) {
            where = where.and("at >= ?", filter.from());
        }
        if (filter.to() != null) {
            where = where.and("at <= ?", filter.to());
        }
        long total = count(connection, "audit_log", where);
        List<Object> values = new ArrayList<>(where.values);
        values.add(filter.limit());
        values.add(filter.offset());
        List<AuditRow> rows = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, "SELECT " + AUDIT_COLUMNS + " FROM audit_log"
                + where.sql() + " ORDER BY seq DESC LIMIT ? OFFSET ?", values.toArray());
                ResultSet result = select.executeQuery()) {
            while (result.next()) {
                rows.add(auditRow(result));
            }
        }
        return new Page<>(rows, total, filter.limit(), filter.offset());
    }

    /**
     * Walks the chain from its first row: every row's hash recomputed, every link to the row before, no gap in the
     * sequence, and the head where the last row is. Rows before the first may only be missing if a purge said so
     * (its {@code audit.purge} event names the last row it removed and that row's hash).
     */
    ChainCheck verify(Connection connection) throws SQLException {
        long headSeq;
        String headHash;
        try (PreparedStatement head = statements.prepare(connection, "SELECT seq, hash FROM audit_head WHERE id = 1");
                ResultSet result = head.executeQuery()) {
            if (!result.next()) {
                return new ChainCheck(false, 0, null, 0, null, null, "the head row is missing");
            }
            headSeq = result.getLong(1);
            headHash = result.getString(2);
        }
        long rows = 0;
        Long firstSeq = null;
        long expectedSeq = 0;
        String expectedPrev = null;
        // Only up to the head as read: rows appended since (by any node, while this walks) are newer than it, and
        // a walk that went on to them would find the head behind the chain.
        try (PreparedStatement select = statements.prepare(connection, "SELECT " + AUDIT_COLUMNS
                + " FROM audit_log WHERE seq <= ? ORDER BY seq", headSeq)) {
            select.setFetchSize(1000);
            try (ResultSet result = select.executeQuery()) {
                while (result.next()) {
                    AuditRow row = auditRow(result);
                    rows++;
                    if (firstSeq == null) {
                        firstSeq = row.seq();
                        String anchor = anchor(connection, row);
                        if (anchor != null) {
                            return broken(rows, firstSeq, headSeq, headHash, row.seq(), anchor);
                        }
                    } else if (row.seq() != expectedSeq) {
                        return broken(rows, firstSeq, headSeq, headHash, expectedSeq, "row " + expectedSeq
                                + " is missing (the next row is " + row.seq() + ")");
                    } else if (!row.prevHash().equals(expectedPrev)) {
                        return broken(rows, firstSeq, headSeq, headHash, row.seq(), "its link to the row before "
                                + "does not match that row's hash");
                    }
                    if (!AuditChain.hash(row.seq(), row.event(), row.prevHash()).equals(row.hash())) {
                        return broken(rows, firstSeq, headSeq, headHash, row.seq(), "its content does not match "
                                + "its hash: edited after it was written");
                    }
                    expectedSeq = row.seq() + 1;
                    expectedPrev = row.hash();
                }
            }
        }
        if (firstSeq == null && headSeq != 0) {
            return broken(rows, null, headSeq, headHash, 1, "the log is empty but its head names row " + headSeq
                    + ": every row was removed");
        }
        if (firstSeq != null && (expectedSeq - 1 != headSeq || !expectedPrev.equals(headHash))) {
            return broken(rows, firstSeq, headSeq, headHash, expectedSeq, "the chain ends at row "
                    + (expectedSeq - 1) + " but its head names row " + headSeq + ": rows were removed from its end");
        }
        return new ChainCheck(true, rows, firstSeq, headSeq, headHash, null, null);
    }

    /** Why the first row cannot start the chain, or null when it can. */
    private String anchor(Connection connection, AuditRow first) throws SQLException {
        if (first.seq() == 1) {
            return AuditChain.GENESIS.equals(first.prevHash()) ? null : "the first row does not start the chain";
        }
        String said = "through " + (first.seq() - 1) + " " + first.prevHash();
        try (PreparedStatement select = statements.prepare(connection, "SELECT 1 FROM audit_log WHERE action = ? "
                + "AND detail LIKE ? ESCAPE '\\'", AuditEvent.PURGE, "%" + escape(said) + "%");
                ResultSet result = select.executeQuery()) {
            return result.next() ? null : "rows before " + first.seq() + " are missing, and no purge says it removed "
                    + "them";
        }
    }

    private static ChainCheck broken(long rows, Long firstSeq, long headSeq, String headHash, long at, String why) {
        return new ChainCheck(false, rows, firstSeq, headSeq, headHash, at, why);
    }

    private long count(Connection connection, String table, Where where) throws SQLException {
        try (PreparedStatement select = statements.prepare(connection, "SELECT COUNT(*) FROM " + table + where.sql(),
                where.values.toArray()); ResultSet result = select.executeQuery()) {
            result.next();
            return result.getLong(1);
        }
    }

    private static Where sessionWhere(SessionFilter filter) {
        Where where = new Where();
        if (filter.user() != null) {
            where = where.and("LOWER(created_by) LIKE ? ESCAPE '\\'", likeAnywhere(filter.user()));
        }
        if (filter.entry() != null) {
            String pattern = likeAnywhere(filter.entry());
            where = where.and("(LOWER(address_book_entry) LIKE ? ESCAPE '\\' OR LOWER(entry_display_name) LIKE ? "
                    + "ESCAPE '\\')", pattern, pattern);
        }
        if (filter.type() != null) {
            where = where.and("session_type = ?", filter.type());
        }
        if (filter.from() != null) {
            where = where.and("started_at >= ?", filter.from());
        }
        if (filter.to() != null) {
            where = where.and("started_at < ?", filter.to());
        }
        if (filter.ownerId() != null) {
            where = where.and("owner_id = ?", filter.ownerId());
        }
        return where;
    }

    static String likeAnywhere(String text) {
        return "%" + escape(text.toLowerCase(java.util.Locale.ROOT)) + "%";
    }

    private static String likePrefix(String text) {
        return escape(text) + "%";
    }

    private static String escape(String text) {
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_");
    }

    private static double hours(long seconds) {
        return Math.round(seconds / 36.0) / 100.0;
    }

    static Instant instant(ResultSet result, int column) throws SQLException {
        OffsetDateTime value = result.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    private static Long longOrNull(ResultSet result, int column) throws SQLException {
        long value = result.getLong(column);
        return result.wasNull() ? null : value;
    }

    private static SessionRow sessionRow(ResultSet r) throws SQLException {
        int port = r.getInt(4);
        Integer portOrNull = r.wasNull() ? null : port;
        return new SessionRow(r.getString(1), r.getString(2), r.getString(3), portOrNull, r.getString(5),
                r.getString(6), r.getString(7), r.getString(8), r.getString(9), instant(r, 10), instant(r, 11),
                longOrNull(r, 12), r.getString(13), r.getString(14), r.getString(15), r.getString(16),
                r.getString(17), r.getString(18), r.getString(19), r.getString(20), r.getString(21),
                longOrNull(r, 22), longOrNull(r, 23), r.getInt(24));
    }

    private static AuditRow auditRow(ResultSet r) throws SQLException {
        AuditEvent event = new AuditEvent(r.getString(2), instant(r, 3), r.getString(4), r.getString(5),
                r.getString(6), r.getString(7), r.getString(8), r.getString(9), r.getString(10), r.getString(11),
                r.getString(12));
        return new AuditRow(r.getLong(1), event, r.getString(13), r.getString(14));
    }

    /** A WHERE clause built from conditions, with its parameters in order. */
    private static final class Where {
        private final List<String> conditions = new ArrayList<>();
        private final List<Object> values = new ArrayList<>();

        Where and(String condition, Object... parameters) {
            Where next = new Where();
            next.conditions.addAll(conditions);
            next.values.addAll(values);
            next.conditions.add(condition);
            next.values.addAll(List.of(parameters));
            return next;
        }

        String sql() {
            return conditions.isEmpty() ? "" : " WHERE " + String.join(" AND ", conditions);
        }
    }
}
