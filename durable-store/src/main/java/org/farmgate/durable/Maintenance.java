package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import org.farmgate.durable.Summaries.Purged;

/**
 * The store's housekeeping: rows whose node is gone closed as lost, and the retention purge, which one node of the
 * cluster runs at a time (a lease row, taken by a conditional update: the database decides who holds it).
 */
final class Maintenance {

    private static final int DELETE_BATCH = 10_000;
    private static final Duration LEASE = Duration.ofMinutes(10);

    private final FactWriter statements;

    Maintenance(FactWriter statements) {
        this.statements = statements;
    }

    int closeOrphans(Connection connection, Set<String> liveNodes, Instant before, Instant now) throws SQLException {
        int closed = 0;
        DailyTotals totals = new DailyTotals();
        for (FactWriter.OpenRow open : statements.openRows(connection, "started_at < ?", before)) {
            if (!liveNodes.contains(open.nodeId())) {
                closed += statements.closeRow(connection, open, Fact.micros(now), "lost", "lost", null, "its node "
                        + open.nodeId() + " left the cluster", null, null, totals);
            }
        }
        statements.writeTotals(connection, totals);
        connection.commit();
        return closed;
    }

    Purged purge(Connection connection, Instant historyBefore, Instant auditBefore, String nodeId, Instant now)
            throws SQLException {
        if (!lease(connection, nodeId, now)) {
            return null;
        }
        // history goes by whole days (UTC), so that the daily totals and the rows they sum go together
        Instant cut = historyBefore.truncatedTo(ChronoUnit.DAYS);
        try {
            long watchers = deleteInBatches(connection, "DELETE FROM watcher_history WHERE join_id IN (SELECT join_id "
                    + "FROM watcher_history WHERE joined_at < ? AND left_at IS NOT NULL LIMIT " + DELETE_BATCH + ")",
                    cut);
            long history = deleteInBatches(connection, "DELETE FROM session_history WHERE session_id IN (SELECT "
                    + "session_id FROM session_history WHERE started_at < ? AND ended_at IS NOT NULL LIMIT "
                    + DELETE_BATCH + ")", cut);
            deleteInBatches(connection, "DELETE FROM history_daily WHERE on_day < ?", LocalDate.ofInstant(cut,
                    ZoneOffset.UTC));
            long audit = purgeAudit(connection, auditBefore, nodeId, now);
            return new Purged(history, watchers, audit);
        } finally {
            try (PreparedStatement release = statements.prepare(connection, "UPDATE maintenance_lease SET until = ? "
                    + "WHERE name = 'purge' AND holder = ?", Fact.micros(now), nodeId)) {
                release.executeUpdate();
                connection.commit();
            }
        }
    }

    /** Removes the chain's oldest rows, then says so in the chain: the first row left is anchored by that event. */
    private long purgeAudit(Connection connection, Instant before, String nodeId, Instant now) throws SQLException {
        long lastSeq;
        String lastHash;
        try (PreparedStatement select = statements.prepare(connection, "SELECT seq, hash FROM audit_log WHERE seq = "
                + "(SELECT MAX(seq) FROM audit_log WHERE at < ?)", before); ResultSet row = select.executeQuery()) {
            if (!row.next()) {
                return 0;
            }
            lastSeq = row.getLong(1);
            lastHash = row.getString(2);
        }
        long removed = deleteInBatches(connection, "DELETE FROM audit_log WHERE seq IN (SELECT seq FROM audit_log "
                + "WHERE seq <= " + lastSeq + " LIMIT " + DELETE_BATCH + ")");
        statements.write(connection, List.of(new AuditEvent(Fact.newId(), now, AuditEvent.PURGE, AuditEvent.SUCCESS,
                null, null, null, null, "audit_log", "removed " + removed + " rows older than " + before
                + ", through " + lastSeq + " " + lastHash, nodeId)));
        connection.commit();
        return removed;
    }

    private long deleteInBatches(Connection connection, String sql, Object... values) throws SQLException {
        long total = 0;
        while (true) {
            int deleted;
            try (PreparedStatement delete = statements.prepare(connection, sql, values)) {
                deleted = delete.executeUpdate();
            }
            connection.commit();
            total += deleted;
            if (deleted < DELETE_BATCH) {
                return total;
            }
        }
    }

    private boolean lease(Connection connection, String nodeId, Instant now) throws SQLException {
        try (PreparedStatement take = statements.prepare(connection, "UPDATE maintenance_lease SET holder = ?, "
                + "until = ? WHERE name = 'purge' AND until < ?", nodeId, Fact.micros(now.plus(LEASE)),
                Fact.micros(now))) {
            boolean taken = take.executeUpdate() == 1;
            connection.commit();
            return taken;
        }
    }
}
