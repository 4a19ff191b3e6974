package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The trusted SSH host keys in the database, written from facts in any order: a write applies only over an older
 * one (a forgotten key is a row without a key, so that a late trust does not bring it back).
 */
final class HostKeys {

    private final Statements statements;

    HostKeys(Statements statements) {
        this.statements = statements;
    }

    void kept(Connection connection, Fact.HostKeyKept kept) throws SQLException {
        HostKeyRow row = kept.row();
        write(connection, row.host(), row.port(), row.hostKey(), row.fingerprint(), row.how(), row.by(),
                row.sessionId(), row.at());
    }

    void forgotten(Connection connection, Fact.HostKeyForgotten forgotten) throws SQLException {
        write(connection, forgotten.host(), forgotten.port(), null, null, null, forgotten.by(), null, forgotten.at());
    }

    private void write(Connection connection, String host, int port, String key, String fingerprint, String how,
            String by, String sessionId, Instant at) throws SQLException {
        int changed = statements.update(connection, "UPDATE ssh_host_keys SET host_key = ?, fingerprint = ?, how = ?, "
                + "changed_by = ?, session_id = ?, changed_at = ? WHERE host = ? AND port = ? AND changed_at <= ?", key,
                fingerprint, how, by, sessionId, at, host, port, at);
        if (changed == 0) { // none yet (else a newer write stands, and the insert does nothing)
            statements.update(connection, "INSERT INTO ssh_host_keys (host, port, host_key, fingerprint, how, "
                    + "changed_by, session_id, changed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                    host, port, key, fingerprint, how, by, sessionId, at);
        }
    }

    /** The keys trusted now, by host and port. */
    List<HostKeyRow> trusted(Connection connection) throws SQLException {
        List<HostKeyRow> out = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, "SELECT host, port, host_key, fingerprint, "
                + "how, changed_by, session_id, changed_at FROM ssh_host_keys WHERE host_key IS NOT NULL "
                + "ORDER BY host, port");
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                out.add(new HostKeyRow(rows.getString(1), rows.getInt(2), rows.getString(3), rows.getString(4),
                        rows.getString(5), rows.getString(6), rows.getString(7),
                        Reports.instant(rows, 8)));
            }
        }
        return out;
    }
}
