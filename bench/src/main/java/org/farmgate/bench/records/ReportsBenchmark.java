package org.farmgate.bench.records;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.farmgate.durable.AuditFilter;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Operation;
import org.farmgate.durable.SessionFilter;
import org.farmgate.durable.SessionRow;
import org.farmgate.durable.StoreSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * The reports over a large history: fills the database with {@code --rows} closed sessions (500 users, 2000 entries,
 * three protocols, 90 days; written by SQL in one statement, since a million facts through the outbox would measure
 * the filling, not the reports; the daily totals the writer keeps are made from them the same way), then times every
 * report the API serves, {@code --repeats} times each, through the store's own operations (what the HTTP routes call).
 * A database that already holds the rows is not filled again.
 */
@Command(name = "reports-benchmark", mixinStandardHelpOptions = true,
        description = "Times the history reports over a large history")
public final class ReportsBenchmark implements Callable<Integer> {

    @Option(names = "--db-url", required = true, description = "jdbc:postgresql://host:port/database, or embedded "
            + "(an H2 file in a temporary directory)")
    private String dbUrl;

    @Option(names = "--db-user", defaultValue = "postgres")
    private String dbUser;

    @Option(names = "--rows", defaultValue = "1000000", description = "history rows to report over")
    private int rows;

    @Option(names = "--repeats", defaultValue = "50", description = "timed runs of each report")
    private int repeats;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ReportsBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rows < 1 || rows > 50_000_000 || repeats < 1 || repeats > 10_000) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--rows must be 1..50000000 and "
                    + "--repeats 1..10000");
        }
        Path dir = Files.createTempDirectory("farmgate-reports");
        StoreSettings settings = dbUrl.equals("embedded") ? StoreSettings.embedded(dir, "bench")
                : new StoreSettings(dbUrl, dbUser, "", 4, Duration.ofSeconds(60), 1000, dir.resolve("outbox.spool"),
                        1L << 20, "bench");
        try (DurableStore store = DurableStore.open(settings)) {
            await(store.run(Operation.summary(SessionFilter.all()))); // the schema, migrated
            Instant end = Instant.parse("2026-11-30T00:00:00Z");
            fill(settings, end);
            Instant monthAgo = end.minus(Duration.ofDays(30));
            Map<String, Operation<?>> reports = new LinkedHashMap<>();
            reports.put("sessions, newest 100", Operation.sessions(SessionFilter.all()));
            reports.put("sessions, user=user-42", Operation.sessions(filter("user-42", null, null, null)));
            reports.put("sessions, rdp, last 30 days", Operation.sessions(filter(null, null, "rdp", monthAgo)));
            reports.put("sessions, entry=entry-1234", Operation.sessions(filter(null, "entry-1234", null, null)));
            reports.put("sessions, one owner's", Operation.sessions(SessionFilter.all().ownedBy("tok_user-42")));
            reports.put("sessions, page at offset 10000", Operation.sessions(new SessionFilter(null, null, null,
                    null, null, null, 100, 10_000, null)));
            reports.put("summary, everything", Operation.summary(SessionFilter.all()));
            reports.put("summary, last 30 days", Operation.summary(filter(null, null, null, monthAgo)));
            reports.put("top users, everything", Operation.topUsers(SessionFilter.all(), 20));
            reports.put("top users, last 30 days", Operation.topUsers(filter(null, null, null, monthAgo), 20));
            reports.put("audit, newest 200", Operation.audit(AuditFilter.all()));
            System.out.printf("%nReports over %,d history rows (%s), %d runs each%n", count(settings), settings.where(),
                    repeats);
            System.out.printf("%-34s %9s %9s %9s%n", "report", "p50 ms", "p95 ms", "max ms");
            for (Map.Entry<String, Operation<?>> report : reports.entrySet()) {
                await(store.run(report.getValue())); // warm
                double[] ms = new double[repeats];
                for (int i = 0; i < repeats; i++) {
                    long start = System.nanoTime();
                    await(store.run(report.getValue()));
                    ms[i] = (System.nanoTime() - start) / 1e6;
                }
                Arrays.sort(ms);
                System.out.printf(Locale.ROOT, "%-34s %9.1f %9.1f %9.1f%n", report.getKey(), ms[ms.length / 2],
                        ms[(int) Math.ceil(ms.length * 0.95) - 1], ms[ms.length - 1]);
            }
            csvWalk(store);
        }
        return 0;
    }

    /** What the CSV download does: every row, a keyset page of 1000 at a time. */
    private void csvWalk(DurableStore store) throws Exception {
        long start = System.nanoTime();
        long walked = 0;
        SessionFilter page = SessionFilter.all().after(null, 1000);
        while (walked < 100_000) {
            List<SessionRow> got = await(store.run(Operation.sessions(page))).rows();
            walked += got.size();
            if (got.size() < 1000) {
                break;
            }
            SessionRow last = got.get(got.size() - 1);
            page = page.after(new SessionFilter.Cursor(last.startedAt(), last.sessionId()), 1000);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf(Locale.ROOT, "CSV walk: %,d rows in %.2f s (%,.0f rows/s)%n", walked, seconds,
                walked / seconds);
    }

    private static SessionFilter filter(String user, String entry, String type, Instant from) {
        return new SessionFilter(user, entry, type, from, null, null, 100, 0, null);
    }

    /** Closed sessions spread over the 90 days before {@code end}, unless the table holds them already. */
    private void fill(StoreSettings settings, Instant end) throws Exception {
        long have = count(settings);
        if (have >= rows) {
            return;
        }
        long start = System.nanoTime();
        boolean h2 = settings.embedded();
        String series = h2 ? "SYSTEM_RANGE(" + (have + 1) + ", " + rows + ")" : "generate_series(" + (have + 1)
                + ", " + rows + ") AS x";
        // H2's range column is X, upper case, which DATABASE_TO_LOWER would turn into x unless quoted
        String n = h2 ? "\"X\"" : "x";
        String big = h2 ? "CAST(\"X\" AS BIGINT)" : "x::bigint";
        String startedAt = h2 ? "DATEADD(SECOND, -MOD(" + big + " * 7919, 7776000), TIMESTAMP WITH TIME ZONE '" + end
                + "')" : "TIMESTAMPTZ '" + end + "' - (((" + big + " * 7919) % 7776000) * INTERVAL '1 second')";
        String endedAt = h2 ? "DATEADD(SECOND, MOD(" + n + ", 7200), " + startedAt + ")" : startedAt
                + " + ((" + n + " % 7200) * INTERVAL '1 second')";
        String sql = "INSERT INTO session_history (session_id, session_type, hostname, port, username, created_by, "
                + "address_book_entry, address_book_folder, entry_display_name, started_at, ended_at, duration_secs, "
                + "status, owner_id, node_id, client_address, end_reason, bytes_to_client, bytes_from_client, "
                + "watchers) SELECT 'bench-' || " + n + ", CASE MOD(" + n + ", 3) WHEN 0 THEN 'ssh' WHEN 1 THEN 'rdp' "
                + "ELSE 'vnc' END, 'host-' || MOD(" + n + ", 2000), 22, 'admin', 'user-' || MOD(" + n + ", 500), "
                + "'entry-' || MOD(" + n + ", 2000), 'farm/rack-' || MOD(" + n + ", 40), 'Machine ' || MOD(" + n
                + ", 2000), " + startedAt + ", " + endedAt + ", MOD(" + n + ", 7200), 'completed', 'tok_user-' || "
                + "MOD(" + n + ", 500), 'node-' || MOD(" + n + ", 3), '10.0.0.' || MOD(" + n + ", 250), "
                + "'completed', 1000000, 20000, 0 FROM " + series;
        try (Connection connection = DriverManager.getConnection(settings.jdbcUrl(), settings.user(),
                settings.password()); Statement statement = connection.createStatement()) {
            statement.executeUpdate(sql);
            // the daily totals the writer keeps as rows open and close, made here from the rows at once
            statement.executeUpdate("DELETE FROM history_daily");
            statement.executeUpdate("INSERT INTO history_daily (on_day, created_by, session_type, sessions, seconds, "
                    + "last_started) SELECT CAST(started_at AT TIME ZONE 'UTC' AS DATE), created_by, session_type, "
                    + "COUNT(*), COALESCE(SUM(duration_secs), 0), MAX(started_at) FROM session_history GROUP BY "
                    + "CAST(started_at AT TIME ZONE 'UTC' AS DATE), created_by, session_type");
            if (!h2) {
                statement.execute("ANALYZE session_history");
                statement.execute("ANALYZE history_daily");
            }
        }
        System.out.printf(Locale.ROOT, "filled %,d rows in %.1f s%n", rows - have,
                (System.nanoTime() - start) / 1e9);
    }

    private static long count(StoreSettings settings) throws Exception {
        try (Connection connection = DriverManager.getConnection(settings.jdbcUrl(), settings.user(),
                settings.password()); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM session_history")) {
            result.next();
            return result.getLong(1);
        }
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.MINUTES);
    }
}
