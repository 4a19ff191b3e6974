package org.farmgate.durable;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.farmgate.testkit.db.TestPostgres;

/** The two databases the store runs on, each fresh per call: PostgreSQL (shared server, own database) and H2. */
enum Databases {
    POSTGRESQL,
    H2;

    static final List<Databases> ALL = List.of(values());

    /** Settings for a fresh, empty database of this kind; a PostgreSQL test skips where there is no server. */
    StoreSettings fresh(String nodeId) {
        Path dir = tempDir();
        if (this == H2) {
            return StoreSettings.embedded(dir, nodeId);
        }
        assumeTrue(TestPostgres.shared().isPresent(), () -> "no PostgreSQL: " + TestPostgres.whyUnavailable());
        TestPostgres server = TestPostgres.shared().get();
        return at(server.newDatabase(), server.user(), dir, nodeId);
    }

    static StoreSettings at(String url, String user, Path dir, String nodeId) {
        return new StoreSettings(url, user, "", 4, Duration.ofSeconds(3), 1000, dir.resolve("outbox.spool"),
                1L << 20, nodeId);
    }

    static Connection connect(StoreSettings settings) throws SQLException {
        Connection connection = DriverManager.getConnection(settings.jdbcUrl(), settings.user(), settings.password());
        connection.setAutoCommit(true);
        return connection;
    }

    static Path tempDir() {
        try {
            return Files.createTempDirectory("farmgate-store");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
