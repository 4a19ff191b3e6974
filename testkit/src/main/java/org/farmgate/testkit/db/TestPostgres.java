package org.farmgate.testkit.db;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.farmgate.testkit.process.NodeProcess;

/**
 * The real PostgreSQL the suite's tests share: the server {@code .ci/run} started (its address in
 * {@code FARMGATE_TEST_PG_URL}, a superuser's {@code jdbc:postgresql://host:port/postgres}, with
 * {@code FARMGATE_TEST_PG_USER}), or else one this JVM starts from Debian's binaries (initdb into a temporary
 * directory, as the {@code postgres} user when run as root; stopped when the JVM ends). Each test takes a database
 * of its own ({@link #newDatabase}), so tests never see each other's rows.
 */
public final class TestPostgres {

    private static TestPostgres shared;
    private static String unavailable;

    private final String host;
    private final int port;
    private final String user;

    private TestPostgres(String host, int port, String user) {
        this.host = host;
        this.port = port;
        this.user = user;
    }

    /** The shared server, or why there is none here (the test then skips, saying so). */
    public static synchronized Optional<TestPostgres> shared() {
        if (shared == null && unavailable == null) {
            try {
                shared = locate();
            } catch (IOException | RuntimeException e) {
                unavailable = e.getMessage();
            }
        }
        return Optional.ofNullable(shared);
    }

    public static synchronized String whyUnavailable() {
        return unavailable;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String user() {
        return user;
    }

    /** A fresh, empty database; returns its JDBC URL (the {@link #user} may use it, with no password). */
    public String newDatabase() {
        String name = "fg_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        try (Connection admin = DriverManager.getConnection(url("postgres"), user, "");
                Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create a test database on " + host + ":" + port + ": "
                    + e.getMessage(), e);
        }
        return url(name);
    }

    public String url(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    private static TestPostgres locate() throws IOException {
        String given = System.getenv("FARMGATE_TEST_PG_URL");
        if (given != null && !given.isBlank()) {
            String rest = given.replaceFirst("^jdbc:postgresql://", "");
            String hostPort = rest.substring(0, rest.indexOf('/') < 0 ? rest.length() : rest.indexOf('/'));
            int colon = hostPort.lastIndexOf(':');
            String user = Optional.ofNullable(System.getenv("FARMGATE_TEST_PG_USER")).orElse("postgres");
            return new TestPostgres(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)),
                    user);
        }
        Path bin = binaries().orElseThrow(() -> new IllegalStateException(
                "no PostgreSQL here: set FARMGATE_TEST_PG_URL, or install Debian's postgresql"));
        return startOwn(bin);
    }

    private static Optional<Path> binaries() throws IOException {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(version -> version.resolve("bin"))
                    .filter(bin -> Files.isExecutable(bin.resolve("initdb")))
                    .max(Comparator.naturalOrder());
        }
    }

    /** A throwaway server on a free loopback port, trusting local connections; gone when the JVM ends. */
    private static TestPostgres startOwn(Path bin) throws IOException {
        Path dir = Files.createTempDirectory("farmgate-pg");
        Path data = dir.resolve("data");
        boolean root = "root".equals(System.getProperty("user.name"));
        if (root) {
            run(List.of("chown", "postgres", dir.toString()), List.of());
        }
        int port = NodeProcess.freePort();
        run(List.of(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--no-sync"), root ? List.of("runuser", "-u", "postgres", "--") : List.of());
        run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("log").toString(),
                "-w", "-t", "60", "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c fsync=off"
                        + " -c max_connections=300", "start"),
                root ? List.of("runuser", "-u", "postgres", "--") : List.of());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                run(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-m", "immediate", "stop"),
                        root ? List.of("runuser", "-u", "postgres", "--") : List.of());
                run(List.of("rm", "-rf", dir.toString()), List.of());
            } catch (IOException | RuntimeException ignored) {
                // the JVM is ending; a leftover temporary directory is harmless
            }
        }));
        return new TestPostgres("127.0.0.1", port, "postgres");
    }

    private static void run(List<String> command, List<String> prefix) throws IOException {
        List<String> full = new ArrayList<>(prefix);
        full.addAll(command);
        Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(90, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", full) + " did not finish in 90 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", full) + " failed: "
                    + new String(process.getInputStream().readAllBytes()));
        }
    }
}
