package org.farmgate.durable;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool of connections to the store's database, and its schema. The schema is brought up to date by Flyway's
 * migrations (db/migration for both databases, then db/postgresql or db/h2 for one alone) on the first use that finds
 * the database answering, not at start: a node whose database is away still starts and serves sessions (its facts wait
 * in the outbox). Several nodes migrating at once are safe: Flyway holds PostgreSQL's advisory lock while it migrates.
 *
 * <p>Every call here blocks; only the store's own threads make them.
 */
final class Database implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Database.class);

    private final HikariDataSource pool;
    private final StoreSettings settings;
    private final AtomicBoolean migrated = new AtomicBoolean();

    Database(StoreSettings settings) {
        this.settings = settings;
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(settings.jdbcUrl());
        config.setUsername(settings.user());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(settings.poolSize());
        config.setMinimumIdle(1);
        config.setPoolName("farmgate-store");
        config.setConnectionTimeout(Math.max(250, settings.statementTimeout().toMillis() / 2));
        config.setValidationTimeout(Math.max(250, Math.min(2000, settings.statementTimeout().toMillis() / 4)));
        // Start even when the database is away: the first use that finds it migrates and writes.
        config.setInitializationFailTimeout(-1);
        config.setAutoCommit(false);
        if (!settings.embedded()) {
            // A database that stops answering mid-statement counts as away after the statement timeout.
            config.addDataSourceProperty("socketTimeout", Long.toString(settings.statementTimeout().toSeconds() + 5));
            config.addDataSourceProperty("connectTimeout", Long.toString(
                    Math.max(1, settings.statementTimeout().toSeconds() / 2)));
            config.addDataSourceProperty("tcpKeepAlive", "true");
        }
        this.pool = new HikariDataSource(config);
    }

    /** A connection to a database whose schema is current; the caller commits and closes it. */
    Connection connect() throws SQLException {
        if (!migrated.get()) {
            migrate();
        }
        return pool.getConnection();
    }

    private synchronized void migrate() throws SQLException {
        if (migrated.get()) {
            return;
        }
        try {
            var result = Flyway.configure().dataSource(pool).locations("classpath:db/migration",
                            "classpath:db/" + (settings.embedded() ? "h2" : "postgresql"))
                    .connectRetries(0).load().migrate();
            if (result.migrationsExecuted > 0) {
                LOG.info("database {}: schema migrated to version {} ({} migrations)", settings.where(),
                        result.targetSchemaVersion, result.migrationsExecuted);
            }
            migrated.set(true);
        } catch (RuntimeException e) {
            throw new SQLException("could not bring the schema of " + settings.where() + " up to date: "
                    + rootMessage(e), e);
        }
    }

    int statementTimeoutSeconds() {
        return (int) Math.max(1, settings.statementTimeout().toSeconds());
    }

    /** What went wrong, from the outermost message and the innermost cause (which alone is often a bare EOF). */
    static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String inner = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        if (root == error || error.getMessage() == null || error.getMessage().contains(inner)) {
            return error.getMessage() == null ? inner : error.getMessage();
        }
        return error.getMessage() + ": " + inner;
    }

    @Override
    public void close() {
        pool.close();
    }
}
