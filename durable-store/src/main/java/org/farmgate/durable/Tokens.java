package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** API tokens in the database: written when created, read back when a whole cluster starts again. */
final class Tokens {

    private final Statements statements;

    Tokens(Statements statements) {
        this.statements = statements;
    }

    void save(Connection connection, TokenRow token) throws SQLException {
        try (PreparedStatement insert = statements.prepare(connection, "INSERT INTO api_tokens (id, name, hash, role, "
                + "groups_list, created_at, expires_at, created_by, owner_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                token.id(), token.name(), token.hash(), token.role(), String.join("\n", token.groups()),
                token.createdAt(), token.expiresAt(), token.createdBy(), token.ownerId())) {
            insert.executeUpdate();
        }
    }

    /** Tokens neither revoked nor expired at {@code now}. */
    List<TokenRow> active(Connection connection, Instant now) throws SQLException {
        return tokens(connection, "", now);
    }

    private List<TokenRow> tokens(Connection connection, String condition, Instant now, Object... values)
            throws SQLException {
        Object[] all = new Object[values.length + 1];
        all[0] = now;
        System.arraycopy(values, 0, all, 1, values.length);
        List<TokenRow> out = new ArrayList<>();
        try (PreparedStatement select = statements.prepare(connection, "SELECT id, name, hash, role, groups_list, "
                + "created_at, expires_at, created_by, owner_id FROM api_tokens WHERE revoked_at IS NULL AND "
                + "(expires_at IS NULL OR expires_at > ?)" + condition + " ORDER BY created_at", all);
                ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                String groups = rows.getString(5);
                out.add(new TokenRow(rows.getString(1), rows.getString(2), rows.getString(3), rows.getString(4),
                        groups.isEmpty() ? List.of() : Arrays.asList(groups.split("\n")), Reports.instant(rows, 6),
                        Reports.instant(rows, 7), rows.getString(8), rows.getString(9)));
            }
        }
        return out;
    }
}
