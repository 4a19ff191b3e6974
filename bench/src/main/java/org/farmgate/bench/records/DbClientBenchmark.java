package org.farmgate.bench.records;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Tuple;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * The two PostgreSQL clients the store could use, side by side on the same server and table: JDBC with HikariCP on a
 * thread (what the store does) and Vert.x's reactive client. Three shapes of write: one row per transaction, one
 * after the other (a fact written alone); {@code --batch} rows per transaction (the outbox's batches); and, for the
 * reactive client, {@code --in-flight} single-row transactions at once (what it would do without an outbox). Rounds
 * alternate between the clients; medians, the process's CPU per row.
 */
@Command(name = "db-client-benchmark", mixinStandardHelpOptions = true,
        description = "JDBC with HikariCP against vertx-pg-client, writing rows to PostgreSQL")
public final class DbClientBenchmark implements Callable<Integer> {

    @Option(names = "--host", defaultValue = "127.0.0.1")
    private String host;

    @Option(names = "--port", defaultValue = "5432")
    private int port;

    @Option(names = "--database", defaultValue = "postgres")
    private String database;

    @Option(names = "--user", defaultValue = "postgres")
    private String user;

    @Option(names = "--rows", defaultValue = "3000", description = "rows per measurement")
    private int rows;

    @Option(names = "--batch", defaultValue = "500")
    private int batch;

    @Option(names = "--in-flight", defaultValue = "16")
    private int inFlight;

    @Option(names = "--rounds", defaultValue = "3")
    private int rounds;

    private static final String INSERT = "INSERT INTO fg_client_bench (id, payload, at) VALUES ($1, $2, now())";

    public static void main(String[] args) {
        System.exit(new CommandLine(new DbClientBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (rows < 1 || rows > 1_000_000 || batch < 1 || inFlight < 1 || inFlight > 256 || rounds < 1 || rounds > 20) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--rows 1..1000000, --batch >= 1, "
                    + "--in-flight 1..256, --rounds 1..20");
        }
        String url = "jdbc:postgresql://" + host + ":" + port + "/" + database;
        try (Connection setup = DriverManager.getConnection(url, user, ""); Statement statement = setup
                .createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS fg_client_bench (id VARCHAR(64) PRIMARY KEY, payload "
                    + "VARCHAR(255), at TIMESTAMP WITH TIME ZONE)");
        }
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(4);
        Vertx vertx = Vertx.vertx();
        Pool pool = PgBuilder.pool().with(new PoolOptions().setMaxSize(4)).connectingTo(new PgConnectOptions()
                .setHost(host).setPort(port).setDatabase(database).setUser(user)).using(vertx).build();
        try (HikariDataSource jdbc = new HikariDataSource(config)) {
            List<String> names = List.of("JDBC, a row per transaction", "reactive, a row per transaction",
                    "JDBC, " + batch + " rows per transaction", "reactive, " + batch + " rows per transaction",
                    "reactive, " + inFlight + " transactions in flight");
            List<List<double[]>> results = new ArrayList<>();
            names.forEach(name -> results.add(new ArrayList<>()));
            for (int round = 0; round < rounds; round++) {
                results.get(0).add(measure(() -> jdbcSingle(jdbc)));
                results.get(1).add(measure(() -> reactiveSingle(pool)));
                results.get(2).add(measure(() -> jdbcBatch(jdbc)));
                results.get(3).add(measure(() -> reactiveBatch(pool)));
                results.get(4).add(measure(() -> reactiveInFlight(pool)));
            }
            System.out.printf("%n%d rows per measurement, %d rounds, medians%n", rows, rounds);
            System.out.printf("%-38s %12s %16s%n", "client and shape", "rows/s", "CPU µs / row");
            for (int i = 0; i < names.size(); i++) {
                System.out.printf(Locale.ROOT, "%-38s %12.0f %16.1f%n", names.get(i), median(results.get(i), 0),
                        median(results.get(i), 1));
            }
        } finally {
            pool.close().await(10, TimeUnit.SECONDS);
            vertx.close().await(10, TimeUnit.SECONDS);
        }
        return 0;
    }

    private interface Work {
        void run() throws Exception;
    }

    /** Rows per second, and this process's CPU per row in microseconds. */
    private double[] measure(Work work) throws Exception {
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                ManagementFactory.getOperatingSystemMXBean();
        long cpu = os.getProcessCpuTime();
        long start = System.nanoTime();
        work.run();
        double seconds = (System.nanoTime() - start) / 1e9;
        return new double[] {rows / seconds, (os.getProcessCpuTime() - cpu) / 1e3 / rows};
    }

    private void jdbcSingle(HikariDataSource jdbc) throws Exception {
        for (int i = 0; i < rows; i++) {
            try (Connection connection = jdbc.getConnection(); PreparedStatement insert = connection.prepareStatement(
                    INSERT.replace("$1", "?").replace("$2", "?"))) {
                insert.setString(1, UUID.randomUUID().toString());
                insert.setString(2, "a fact of about this size, as the history writes them");
                insert.executeUpdate();
            }
        }
    }

    private void jdbcBatch(HikariDataSource jdbc) throws Exception {
        for (int done = 0; done < rows; done += batch) {
            try (Connection connection = jdbc.getConnection()) {
                connection.setAutoCommit(false);
                try (PreparedStatement insert = connection.prepareStatement(INSERT.replace("$1", "?")
                        .replace("$2", "?"))) {
                    for (int i = 0; i < Math.min(batch, rows - done); i++) {
                        insert.setString(1, UUID.randomUUID().toString());
                        insert.setString(2, "a fact of about this size, as the history writes them");
                        insert.executeUpdate();
                    }
                }
                connection.commit();
            }
        }
    }

    private void reactiveSingle(Pool pool) throws Exception {
        for (int i = 0; i < rows; i++) {
            pool.preparedQuery(INSERT).execute(Tuple.of(UUID.randomUUID().toString(),
                    "a fact of about this size, as the history writes them")).await(10, TimeUnit.SECONDS);
        }
    }

    private void reactiveBatch(Pool pool) throws Exception {
        for (int done = 0; done < rows; done += batch) {
            int count = Math.min(batch, rows - done);
            pool.withTransaction(connection -> {
                Future<?> chain = Future.succeededFuture();
                for (int i = 0; i < count; i++) {
                    chain = chain.compose(ignored -> connection.preparedQuery(INSERT).execute(Tuple.of(
                            UUID.randomUUID().toString(), "a fact of about this size, as the history writes them")));
                }
                return chain;
            }).await(60, TimeUnit.SECONDS);
        }
    }

    private void reactiveInFlight(Pool pool) throws Exception {
        List<Future<?>> window = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            window.add(pool.preparedQuery(INSERT).execute(Tuple.of(UUID.randomUUID().toString(),
                    "a fact of about this size, as the history writes them")));
            if (window.size() == inFlight) {
                Future.all(window).await(30, TimeUnit.SECONDS);
                window.clear();
            }
        }
        Future.all(window).await(30, TimeUnit.SECONDS);
    }

    private static double median(List<double[]> runs, int index) {
        double[] values = runs.stream().mapToDouble(run -> run[index]).toArray();
        Arrays.sort(values);
        return values[values.length / 2];
    }
}
