package org.farmgate.durable;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Where the durable store lives and how much it may hold back while its database is away.
 *
 * @param jdbcUrl {@code jdbc:postgresql://…} for a cluster, {@code jdbc:h2:file:…} for a node alone
 * @param password never logged, never in {@link #toString}
 * @param statementTimeout how long one statement may take before the database counts as away (its facts then go to
 *     the spool, and are written again when it answers)
 * @param outboxMemory facts held in memory before the writer spools them
 * @param spoolFile where facts wait on disk while the database is away; one per node
 * @param spoolMaxBytes the spool's bound: past it, facts are dropped and counted, and the node says so
 */
public record StoreSettings(String jdbcUrl, String user, String password, int poolSize, Duration statementTimeout,
        int outboxMemory, Path spoolFile, long spoolMaxBytes, String nodeId) {

    public StoreSettings {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(spoolFile, "spoolFile");
        Objects.requireNonNull(nodeId, "nodeId");
        if (!jdbcUrl.startsWith("jdbc:postgresql:") && !jdbcUrl.startsWith("jdbc:h2:")) {
            throw new IllegalArgumentException("the database URL must start with jdbc:postgresql: (a cluster) or "
                    + "jdbc:h2: (a node alone), got '" + jdbcUrl.replaceAll("[?;].*", "") + "'");
        }
    }

    /** The embedded database of a node alone, in its data directory. */
    public static StoreSettings embedded(Path dataDir, String nodeId) {
        Path file = dataDir.toAbsolutePath().resolve("farmgate");
        return new StoreSettings("jdbc:h2:file:" + file + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;QUERY_CACHE_SIZE=64",
                "farmgate", "",
                2, Duration.ofSeconds(10), 10_000, dataDir.resolve("outbox.spool"), 256L << 20, nodeId);
    }

    public boolean embedded() {
        return jdbcUrl.startsWith("jdbc:h2:");
    }

    /** The URL without its parameters (which may name a password file), for the log. */
    public String where() {
        return jdbcUrl.replaceAll("[?;].*", "");
    }

    @Override
    public String toString() {
        return "StoreSettings[" + where() + ", user=" + user + ", pool=" + poolSize + "]";
    }
}
