package org.farmgate.node.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.farmgate.durable.StoreSettings;
import org.farmgate.node.target.Cidr;

/**
 * Where history and the audit log are kept, for how long, and whom the node believes about a client's address.
 *
 * @param store the database; null for a cluster without one (it forgets, and says so at every start)
 * @param auditRequired whether a new session is refused while the audit log cannot be written
 * @param trustedProxies the balancers whose {@code X-Forwarded-For} names the client; nobody else's is believed
 */
public record AccountabilitySettings(StoreSettings store, Duration historyRetention, Duration auditRetention,
        boolean auditRequired, List<Cidr> trustedProxies) {

    /** {@code GW_DB_URL=none}: keep nothing, even on a node alone. */
    public static final String NONE = "none";

    public static AccountabilitySettings from(ConfigSource source, String nodeId, boolean clustered) {
        Path dataDir = Path.of(source.string("GW_DATA_DIR", "data"));
        return new AccountabilitySettings(store(source, nodeId, clustered, dataDir),
                Duration.ofDays(source.integer("GW_HISTORY_RETENTION_DAYS", 90, 1, 36_500)),
                Duration.ofDays(source.integer("GW_AUDIT_RETENTION_DAYS", 400, 1, 36_500)),
                source.bool("GW_AUDIT_REQUIRED", false),
                NodeConfig.cidrs(source, "GW_TRUSTED_PROXIES", List.of()));
    }

    public boolean keeps() {
        return store != null;
    }

    private static StoreSettings store(ConfigSource source, String nodeId, boolean clustered, Path dataDir) {
        String url = source.string("GW_DB_URL", null);
        if (NONE.equals(url) || url == null && clustered) {
            return null;
        }
        StoreSettings embedded = StoreSettings.embedded(dataDir, nodeId);
        if (url == null) {
            return embedded;
        }
        String jdbc = url.startsWith("jdbc:") ? url : "jdbc:" + url;
        if (!jdbc.startsWith("jdbc:postgresql://")) {
            throw new ConfigException("GW_DB_URL must be a PostgreSQL URL, postgresql://host:5432/farmgate (with "
                    + "?sslmode=verify-full&sslrootcert=<file> for TLS), or 'none'; got '" + url.replaceAll("\\?.*", "")
                    + "'");
        }
        if (jdbc.matches("jdbc:postgresql://[^/]*@.*")) {
            throw new ConfigException("GW_DB_URL must not carry a user or password: set GW_DB_USER and "
                    + "GW_DB_PASSWORD_FILE");
        }
        return new StoreSettings(jdbc, source.string("GW_DB_USER", "farmgate"), password(source),
                source.integer("GW_DB_POOL_SIZE", 4, 1, 64),
                Duration.ofSeconds(source.integer("GW_DB_STATEMENT_TIMEOUT_SECS", 10, 1, 600)),
                source.integer("GW_OUTBOX_MEMORY", 10_000, 100, 1_000_000), dataDir.resolve("outbox.spool"),
                (long) source.integer("GW_OUTBOX_SPOOL_MB", 256, 1, 1_000_000) << 20, nodeId);
    }

    private static String password(ConfigSource source) {
        String file = source.string("GW_DB_PASSWORD_FILE", null);
        if (file == null) {
            return "";
        }
        try {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new ConfigException("GW_DB_PASSWORD_FILE: cannot read " + file + ": " + e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "records=" + (store == null ? "none" : store.where());
    }
}
