package org.farmgate.durable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a transaction adds to the days' totals ({@code history_daily}: sessions and seconds per day, creator and
 * protocol), gathered as rows open and close and written once per day, creator and protocol when the transaction's
 * rows are written: a batch of a hundred sessions of one person writes one totals row, not two hundred.
 */
final class DailyTotals {

    private static final String ADD = "UPDATE history_daily SET sessions = sessions + ?, seconds = seconds + ?, "
            + "last_started = GREATEST(last_started, ?) WHERE on_day = ? AND created_by = ? AND session_type = ?";

    private record Key(LocalDate day, String createdBy, String sessionType) {
    }

    private static final class Sum {
        private int sessions;
        private long seconds;
        private Instant lastStarted;
    }

    private final Map<Key, Sum> sums = new LinkedHashMap<>();

    /** One more session of the row's day, creator and protocol, or its time once it closed. */
    void add(FactWriter.OpenRow row, int sessions, long seconds) {
        Sum sum = sums.computeIfAbsent(new Key(LocalDate.ofInstant(row.startedAt(), ZoneOffset.UTC), row.createdBy(),
                row.sessionType()), key -> new Sum());
        sum.sessions += sessions;
        sum.seconds += seconds;
        if (sum.lastStarted == null || row.startedAt().isAfter(sum.lastStarted)) {
            sum.lastStarted = row.startedAt();
        }
    }

    /** Adds every sum in one round trip; a day's first row is made first (by this writer or, at once, another). */
    void write(Connection connection, Statements statements) throws SQLException {
        if (sums.isEmpty()) {
            return;
        }
        List<Map.Entry<Key, Sum>> entries = new ArrayList<>(sums.entrySet());
        int[] added;
        try (PreparedStatement add = statements.prepare(connection, ADD)) {
            for (Map.Entry<Key, Sum> entry : entries) {
                bind(statements, add, entry.getKey(), entry.getValue());
                add.addBatch();
            }
            added = add.executeBatch();
        }
        for (int i = 0; i < entries.size(); i++) {
            if (added[i] == 0) {
                Key key = entries.get(i).getKey();
                Sum sum = entries.get(i).getValue();
                statements.update(connection, "INSERT INTO history_daily (on_day, created_by, session_type, sessions, "
                        + "seconds, last_started) VALUES (?, ?, ?, 0, 0, ?) ON CONFLICT DO NOTHING", key.day(),
                        key.createdBy(), key.sessionType(), sum.lastStarted);
                statements.update(connection, ADD, sum.sessions, sum.seconds, sum.lastStarted, key.day(),
                        key.createdBy(), key.sessionType());
            }
        }
        sums.clear();
    }

    private static void bind(Statements statements, PreparedStatement add, Key key, Sum sum) throws SQLException {
        statements.bind(add, sum.sessions, sum.seconds, sum.lastStarted, key.day(), key.createdBy(),
                key.sessionType());
    }
}
