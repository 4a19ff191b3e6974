package org.farmgate.testkit.db;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;

/**
 * A rustguac 1.9.7 database as rustguac leaves it (its tables and rows of every kind, rustguac-1.9.7.sql), in SQLite,
 * whose two live tokens are {@link #ADMIN_KEY} (an admin key) and {@link #USER_TOKEN} (alice's own token): what the
 * import is tested with.
 */
public final class RustguacDatabase {

    /** rustguac's admin keys are 64 hex digits, bare. */
    public static final String ADMIN_KEY = "5c".repeat(32);
    /** rustguac's personal tokens: {@code rgu_} and 64 hex digits, hashed whole. */
    public static final String USER_TOKEN = "rgu_" + "7e".repeat(32);

    private RustguacDatabase() {
    }

    public static Path create() throws IOException, SQLException {
        Path file = Files.createTempDirectory("rustguac").resolve("rustguac.db");
        String script;
        try (InputStream in = RustguacDatabase.class.getResourceAsStream("/rustguac/rustguac-1.9.7.sql")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("(?m)^--.*$", "");
        }
        try (Connection sqlite = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement statement = sqlite.createStatement()) {
            for (String sql : script.split(";\\s*\\n")) {
                if (!sql.isBlank()) {
                    statement.executeUpdate(sql);
                }
            }
            setHash(sqlite, "UPDATE admins SET api_key_hash = ? WHERE name = 'ops-script'", ADMIN_KEY);
            setHash(sqlite, "UPDATE user_api_tokens SET token_hash = ? WHERE name = 'laptop'", USER_TOKEN);
        }
        return file;
    }

    private static void setHash(Connection sqlite, String sql, String token) throws SQLException {
        try (PreparedStatement update = sqlite.prepareStatement(sql)) {
            update.setString(1, sha256(token));
            update.executeUpdate();
        }
    }

    /** How rustguac hashes a token, and farmgate too: SHA-256 of the whole token, in lower-case hex. */
    public static String sha256(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(
                    StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
