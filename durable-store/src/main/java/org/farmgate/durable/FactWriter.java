package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes a batch of facts in one transaction. Every write is idempotent, so that a batch written twice (its commit
 * was not acknowledged, or its node died between the commit and the spool's advance) leaves what it left once:
 * a session row is inserted if absent and closed only while open; a watcher's join is inserted if absent; an audit
 * event whose id the log holds is skipped.
 *
 * <p>Audit events take the chain's head row for update, so that the events of every node form one chain; the lock
 * is held for one batch's transaction, once per batch.
 */
final class FactWriter {

    private static final String INSERT_ROW = "INSERT INTO session_history (session_id, session_type, hostname, port, "
            + "username, created_by, address_book_entry, address_book_folder, entry_display_name, started_at, status, "
            + "owner_id, created_by_email, node_id, client_address) "
            + "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING";
    private static final String CLOSE_ROW = "UPDATE session_history SET ended_at = ?, duration_secs = ?, status = ?, "
            + "end_reason = ?, ended_by = ?, end_detail = ?, bytes_to_client = ?, bytes_from_client = ? "
            + "WHERE session_id = ? AND ended_at IS NULL";

    private final Statements statements;
    private final HostKeys hostKeys;
    private final Recordings recordings;

    FactWriter(Statements statements) {
        this.statements = statements;
        this.hostKeys = new HostKeys(statements);
        this.recordings = new Recordings(statements);
    }

    /** Writes facts that may have been written before (from the spool, or again after a failure). */
    void write(Connection connection, List<Fact> facts) throws SQLException {
        write(connection, facts, false);
    }

    /**
     * @param firstTry the facts were never given to the database before (a batch taken from memory, whose first
     *     commit this is): no audit event of theirs can be in the log, so the log is not asked
     */
    void write(Connection connection, List<Fact> facts, boolean firstTry) throws SQLException {
        List<AuditEvent> audit = new ArrayList<>();
        DailyTotals totals = new DailyTotals();
        for (Fact fact : facts) {
            if (fact instanceof AuditEvent event) {
                audit.add(event);
            } else {
                writeHistory(connection, fact, totals);
            }
        }
        totals.write(connection, statements);
        if (!audit.isEmpty()) {
            append(connection, audit, firstTry);
        }
    }

    private void writeHistory(Connection connection, Fact fact, DailyTotals totals) throws SQLException {
        if (fact instanceof Fact.SessionOpened opened) {
            insert(connection, opened.row(), totals);
        } else if (fact instanceof Fact.SessionAttached attached) {
            update(connection, "UPDATE session_history SET status = 'active' WHERE session_id = ? "
                    + "AND ended_at IS NULL", attached.sessionId());
        } else if (fact instanceof Fact.SessionClosed closed) {
            close(connection, closed, totals);
        } else if (fact instanceof Fact.WatcherJoined joined) {
            int inserted = update(connection, "INSERT INTO watcher_history (join_id, session_id, watcher_name, "
                    + "share_id, read_only, joined_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    joined.joinId(), joined.sessionId(), joined.watcherName(), joined.shareId(), joined.readOnly(),
                    joined.joinedAt());
            if (inserted > 0) {
                update(connection, "UPDATE session_history SET watchers = watchers + 1 WHERE session_id = ?",
                        joined.sessionId());
            }
        } else if (fact instanceof Fact.WatcherLeft left) {
            update(connection, "UPDATE watcher_history SET left_at = ?, leave_reason = ? WHERE join_id = ? "
                    + "AND left_at IS NULL", left.leftAt(), left.reason(), left.joinId());
        } else if (fact instanceof Fact.NodeRestarted restarted) {
            closeLeftOpen(connection, restarted, totals);
        } else if (fact instanceof Fact.TokenRevoked revoked) {
            update(connection, "UPDATE api_tokens SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS "
                    + "NULL", revoked.at(), revoked.by(), revoked.tokenId());
        } else if (fact instanceof Fact.HostKeyKept kept) {
            hostKeys.kept(connection, kept);
        } else if (fact instanceof Fact.HostKeyForgotten forgotten) {
            hostKeys.forgotten(connection, forgotten);
        } else if (fact instanceof Fact.PersonSignedIn person) {
            seen(connection, person);
        } else if (fact instanceof Fact.RecordingStarted started) {
            recordings.started(connection, started);
        } else if (fact instanceof Fact.RecordingPart part) {
            recordings.part(connection, part);
        } else if (fact instanceof Fact.RecordingJoined joined) {
            recordings.joined(connection, joined);
        } else if (fact instanceof Fact.RecordingEnded ended) {
            recordings.ended(connection, ended);
        } else if (fact instanceof Fact.RecordingDeleted deleted) {
            recordings.deleted(connection, deleted);
        }
    }

    /**
     * The person's row as of this sign-in, unless a later one landed first (two nodes' spools need not land in the
     * order their sign-ins happened).
     */
    private void seen(Connection connection, Fact.PersonSignedIn person) throws SQLException {
        String groups = String.join("\n", person.groups());
        int updated = update(connection, "UPDATE people SET name = ?, email = ?, role = ?, groups_list = ?, "
                + "last_seen = ? WHERE id = ? AND last_seen <= ?", person.name(), person.email(), person.role(),
                groups, person.at(), person.personId(), person.at());
        if (updated == 0 && update(connection, "INSERT INTO people (id, subject, name, email, role, groups_list, "
                + "first_seen, last_seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", person.personId(),
                person.subject(), person.name(), person.email(), person.role(), groups, person.at(), person.at()) == 0) {
            update(connection, "UPDATE people SET first_seen = ? WHERE id = ? AND first_seen > ?", person.at(),
                    person.personId(), person.at());
        }
    }

    private void insert(Connection connection, SessionRow row, DailyTotals totals) throws SQLException {
        int inserted = update(connection, INSERT_ROW, row.sessionId(), row.sessionType(), row.hostname(), row.port(),
                row.username(), row.createdBy(), row.entry(), row.folder(), row.displayName(), row.startedAt(),
                row.status(), row.ownerId(), row.createdByEmail(), row.nodeId(), row.clientAddress());
        if (inserted > 0) {
            totals.add(new OpenRow(row.sessionId(), row.startedAt(), row.createdBy(), row.sessionType(),
                    row.nodeId()), 1, 0);
        }
    }

    /** Closes the row; one whose opening never landed (its node died with it in memory) is written first. */
    private void close(Connection connection, Fact.SessionClosed closed, DailyTotals totals) throws SQLException {
        SessionRow row = closed.row();
        OpenRow open = new OpenRow(row.sessionId(), row.startedAt(), row.createdBy(), row.sessionType(),
                row.nodeId());
        if (closeRow(connection, open, closed, totals) == 0 && !exists(connection, row.sessionId())) {
            insert(connection, row, totals);
            closeRow(connection, open, closed, totals);
        }
    }

    private int closeRow(Connection connection, OpenRow open, Fact.SessionClosed closed, DailyTotals totals)
            throws SQLException {
        return closeRow(connection, open, closed.endedAt(), closed.status(), closed.endReason(), closed.endedBy(),
                closed.endDetail(), closed.bytesToClient(), closed.bytesFromClient(), totals);
    }

    private boolean exists(Connection connection, String sessionId) throws SQLException {
        try (PreparedStatement select = prepare(connection, "SELECT 1 FROM session_history WHERE session_id = ?",
                sessionId); ResultSet row = select.executeQuery()) {
            return row.next();
        }
    }

    /** What closing a row needs to know of it. */
    record OpenRow(String sessionId, Instant startedAt, String createdBy, String sessionType, String nodeId) {
    }

    /**
     * Closes a row if it is still open, and only then counts its time in the daily rollup: a row is closed once,
     * whoever closes it (its node, the coordinator that saw the node go, the node started again, the sweep).
     */
    int closeRow(Connection connection, OpenRow open, Instant endedAt, String status, String reason, String by,
            String detail, Long toClient, Long fromClient, DailyTotals totals) throws SQLException {
        long seconds = Math.max(0, Duration.between(open.startedAt(), endedAt).toSeconds());
        int closed = update(connection, CLOSE_ROW, endedAt, seconds, status, reason, by, detail, toClient,
                fromClient, open.sessionId());
        if (closed > 0) {
            totals.add(open, 0, seconds);
            // watchers leave with the session they watched
            update(connection, "UPDATE watcher_history SET left_at = ?, leave_reason = 'the session ended' "
                    + "WHERE session_id = ? AND left_at IS NULL", endedAt, open.sessionId());
        }
        return closed;
    }

    /** The rows still open that {@code condition} picks. */
    List<OpenRow> openRows(Connection connection, String condition, Object... values) throws SQLException {
        List<OpenRow> out = new ArrayList<>();
        try (PreparedStatement select = prepare(connection, "SELECT session_id, started_at, created_by, session_type, "
                + "node_id FROM session_history WHERE ended_at IS NULL AND " + condition, values);
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                out.add(new OpenRow(rows.getString(1), rows.getObject(2, OffsetDateTime.class).toInstant(),
                        rows.getString(3), rows.getString(4), rows.getString(5)));
            }
        }
        return out;
    }

    /** The rows a node left open before it started again: it holds none of those sessions. */
    private void closeLeftOpen(Connection connection, Fact.NodeRestarted restarted, DailyTotals totals)
            throws SQLException {
        for (OpenRow open : openRows(connection, "node_id = ? AND started_at < ?", restarted.nodeId(),
                restarted.startedAt())) {
            closeRow(connection, open, restarted.startedAt(), "lost", "lost", null, "its node "
                    + restarted.nodeId() + " stopped and started again", null, null, totals);
        }
    }

    /**
     * Appends to the chain the events it does not hold yet, in order, in one round trip for the rows. Events the
     * database may have seen before are looked up first; a first try's are not (twice in one batch is caught here).
     */
    private void append(Connection connection, List<AuditEvent> events, boolean firstTry) throws SQLException {
        long seq;
        String hash;
        try (PreparedStatement head = prepare(connection, "SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE");
                ResultSet row = head.executeQuery()) {
            if (!row.next()) {
                throw new SQLException("the audit log's head row is missing: the schema was changed by hand");
            }
            seq = row.getLong(1);
            hash = row.getString(2);
        }
        Set<String> held = firstTry ? new HashSet<>() : held(connection, events);
        try (PreparedStatement insert = prepare(connection, "INSERT INTO audit_log (seq, event_id, at, action, "
                + "outcome, actor_id, actor_name, actor_role, client_address, target, detail, node_id, prev_hash, "
                + "hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            boolean appended = false;
            for (AuditEvent event : events) {
                if (!held.add(event.eventId())) {
                    continue; // written by an earlier try of this batch, or twice in it
                }
                seq++;
                String next = AuditChain.hash(seq, event, hash);
                statements.bind(insert, seq, event.eventId(), event.at(), event.action(), event.outcome(),
                        event.actorId(), event.actorName(), event.actorRole(), event.clientAddress(), event.target(),
                        event.detail(), event.nodeId(), hash, next);
                insert.addBatch();
                hash = next;
                appended = true;
            }
            if (appended) {
                insert.executeBatch();
                update(connection, "UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1", seq, hash);
            }
        }
    }

    /** Which of the batch's events the log holds already: one query for the batch. */
    private Set<String> held(Connection connection, List<AuditEvent> events) throws SQLException {
        Set<String> out = new HashSet<>();
        Object[] ids = events.stream().map(AuditEvent::eventId).distinct().toArray();
        String marks = String.join(", ", Collections.nCopies(ids.length, "?"));
        try (PreparedStatement select = prepare(connection, "SELECT event_id FROM audit_log WHERE event_id IN ("
                + marks + ")", ids); ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                out.add(rows.getString(1));
            }
        }
        return out;
    }

    void writeTotals(Connection connection, DailyTotals totals) throws SQLException {
        totals.write(connection, statements);
    }

    private int update(Connection connection, String sql, Object... values) throws SQLException {
        return statements.update(connection, sql, values);
    }

    PreparedStatement prepare(Connection connection, String sql, Object... values) throws SQLException {
        return statements.prepare(connection, sql, values);
    }
}
