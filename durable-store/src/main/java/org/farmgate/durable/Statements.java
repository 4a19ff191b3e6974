package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * How the store runs a statement, whoever writes it (the writer, the reports, the housekeeping, the tokens): bound
 * parameters only, each with the store's statement timeout, so that a database that stops answering holds a thread
 * for that long at most.
 */
final class Statements {

    private final int timeoutSeconds;

    Statements(int timeoutSeconds) {
        this.timeoutSeconds = timeoutSeconds;
    }

    PreparedStatement prepare(Connection connection, String sql, Object... values) throws SQLException {
        PreparedStatement statement = connection.prepareStatement(sql);
        statement.setQueryTimeout(timeoutSeconds);
        bind(statement, values);
        return statement;
    }

    int update(Connection connection, String sql, Object... values) throws SQLException {
        try (PreparedStatement statement = prepare(connection, sql, values)) {
            return statement.executeUpdate();
        }
    }

    /** Binds a statement's parameters: for {@link #prepare}, and for one more row of a batch ({@code addBatch}). */
    void bind(PreparedStatement statement, Object... values) throws SQLException {
        for (int i = 0; i < values.length; i++) {
            Object value = values[i];
            int at = i + 1;
            if (value == null) {
                statement.setNull(at, Types.NULL); // the column's type: unspecified to PostgreSQL
            } else if (value instanceof Instant instant) {
                statement.setObject(at, OffsetDateTime.ofInstant(instant, ZoneOffset.UTC));
            } else if (value instanceof Integer number) {
                statement.setInt(at, number);
            } else if (value instanceof Long number) {
                statement.setLong(at, number);
            } else if (value instanceof LocalDate day) {
                statement.setObject(at, day);
            } else if (value instanceof Boolean flag) {
                statement.setBoolean(at, flag);
            } else {
                statement.setString(at, value.toString());
            }
        }
    }
}
