package org.farmgate.node.config;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import org.farmgate.recording.S3Settings;

/**
 * Whether sessions are recorded and where recordings go.
 *
 * @param mode {@code off}; {@code all} sessions but those of entries that say {@code enable_recording: false};
 *     {@code entries}: only those of entries (or folders) that say {@code enable_recording: true}
 * @param s3 the bucket; null for {@code directory}
 * @param directory where a node alone (or nodes sharing a volume) keeps them; null with S3
 * @param spoolDir where a recording waits for its next part to be uploaded
 * @param spoolBytes how much of one recording may wait there before the recording stops, incomplete
 * @param partBytes how much goes up at once (S3's smallest is 5 MiB)
 * @param required a new session is refused while recordings cannot be kept
 * @param ownerAccess a session's owner may watch its recording (admins and auditors always may)
 * @param maxAge recordings older than this are deleted; zero keeps them
 * @param maxCount only the newest this many are kept; 0 keeps all
 */
public record RecordingSettings(Mode mode, boolean keys, S3Settings s3, Path directory, Path spoolDir,
        long spoolBytes, long partBytes, boolean required, boolean ownerAccess, Duration maxAge, int maxCount) {

    /** When sessions are recorded. */
    public enum Mode {
        OFF, ALL, ENTRIES;

        static Mode parse(String text) {
            for (Mode mode : values()) {
                if (mode.name().toLowerCase(Locale.ROOT).equals(text)) {
                    return mode;
                }
            }
            throw new ConfigException("GW_RECORDING must be off, all or entries; got '" + text + "'");
        }
    }

    public static RecordingSettings from(ConfigSource source, boolean clustered, boolean keepsRecords) {
        Mode mode = Mode.parse(source.string("GW_RECORDING", "off"));
        Path data = Path.of(source.string("GW_DATA_DIR", "data"));
        S3Settings s3 = s3(source);
        String dir = source.string("GW_RECORDING_DIR", null);
        if (mode != Mode.OFF) {
            if (!keepsRecords) {
                throw new ConfigException("GW_RECORDING needs a database for its index (GW_DB_URL; a node alone has "
                        + "an embedded one unless GW_DB_URL=none)");
            }
            if (clustered && s3 == null && dir == null) {
                throw new ConfigException("GW_RECORDING in a cluster needs GW_RECORDING_S3_BUCKET (or a "
                        + "GW_RECORDING_DIR every node shares): any node must play any recording");
            }
        }
        int partMb = source.integer("GW_RECORDING_PART_MB", 8, 5, 512);
        int spoolMb = source.integer("GW_RECORDING_SPOOL_MB", 256, 1, 1_000_000);
        if (spoolMb < 2 * partMb) {
            throw new ConfigException("GW_RECORDING_SPOOL_MB (" + spoolMb + ") must hold two parts at least: "
                    + 2 * partMb + " (GW_RECORDING_PART_MB is " + partMb + ")");
        }
        return new RecordingSettings(mode, source.bool("GW_RECORDING_KEYS", false), s3,
                s3 != null ? null : dir != null ? Path.of(dir) : data.resolve("recordings"),
                Path.of(source.string("GW_RECORDING_SPOOL_DIR", data.resolve("recording-spool").toString())),
                (long) spoolMb << 20, (long) partMb << 20, source.bool("GW_RECORDING_REQUIRED", false),
                source.bool("GW_RECORDING_OWNER_ACCESS", false),
                Duration.ofDays(source.integer("GW_RECORDING_MAX_AGE_DAYS", 0, 0, 36_500)),
                source.integer("GW_RECORDING_MAX_COUNT", 0, 0, 100_000_000));
    }

    public boolean enabled() {
        return mode != Mode.OFF;
    }

    private static S3Settings s3(ConfigSource source) {
        String bucket = source.string("GW_RECORDING_S3_BUCKET", null);
        if (bucket == null) {
            return null;
        }
        String endpoint = source.string("GW_RECORDING_S3_ENDPOINT", null);
        URI uri = null;
        if (endpoint != null) {
            uri = URI.create(endpoint);
            if (!"https".equals(uri.getScheme()) && !"http".equals(uri.getScheme()) || uri.getHost() == null) {
                throw new ConfigException("GW_RECORDING_S3_ENDPOINT must be an http(s) URL, got '" + endpoint + "'");
            }
        }
        String accessKey = source.string("GW_RECORDING_S3_ACCESS_KEY", null);
        String secret = Placeholders.refused("GW_RECORDING_S3_SECRET_KEY", secret(source));
        if ((accessKey == null) != (secret == null)) {
            throw new ConfigException("GW_RECORDING_S3_ACCESS_KEY and GW_RECORDING_S3_SECRET_KEY(_FILE) go together; "
                    + "leave both unset for AWS's own chain (environment, profile, instance role)");
        }
        return new S3Settings(uri, source.string("GW_RECORDING_S3_REGION", "us-east-1"), bucket,
                source.string("GW_RECORDING_S3_PREFIX", ""), accessKey, secret);
    }

    private static String secret(ConfigSource source) {
        String file = source.string("GW_RECORDING_S3_SECRET_KEY_FILE", null);
        if (file == null) {
            return source.string("GW_RECORDING_S3_SECRET_KEY", null);
        }
        try {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            throw new ConfigException("GW_RECORDING_S3_SECRET_KEY_FILE: cannot read " + file + ": " + e.getMessage());
        }
    }

    /** Where they go, never a key. */
    @Override
    public String toString() {
        return "recording=" + mode.name().toLowerCase(Locale.ROOT) + (mode == Mode.OFF ? ""
                : " to " + (s3 != null ? s3.toString() : "directory " + directory));
    }
}
