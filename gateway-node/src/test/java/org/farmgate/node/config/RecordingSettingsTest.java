package org.farmgate.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.error.ConflictException;
import org.farmgate.error.ForbiddenException;
import org.farmgate.model.Role;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.recording.RecordingPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Recording settings that cannot work are refused at start, naming the key; the policy follows mode and entry. */
class RecordingSettingsTest {

    private static final String MEMBERS = "GW_CLUSTER_MEMBERS=10.0.0.1,10.0.0.2;GW_CLUSTER_INSECURE=true";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "GW_RECORDING=sometimes | GW_RECORDING must be off, all or entries; got 'sometimes'",
            "GW_RECORDING=all;GW_DB_URL=none | GW_RECORDING needs a database for its index",
            "GW_RECORDING=all;" + MEMBERS + ";GW_DB_URL=postgresql://db:5432/farmgate "
                    + "| GW_RECORDING in a cluster needs GW_RECORDING_S3_BUCKET",
            "GW_RECORDING_PART_MB=4 | GW_RECORDING_PART_MB",
            "GW_RECORDING_PART_MB=64;GW_RECORDING_SPOOL_MB=100 | GW_RECORDING_SPOOL_MB (100) must hold two parts",
            "GW_RECORDING_S3_BUCKET=b;GW_RECORDING_S3_ENDPOINT=ftp://x "
                    + "| GW_RECORDING_S3_ENDPOINT must be an http(s) URL",
            "GW_RECORDING_S3_BUCKET=b;GW_RECORDING_S3_ACCESS_KEY=a | GW_RECORDING_S3_ACCESS_KEY and "
                    + "GW_RECORDING_S3_SECRET_KEY(_FILE) go together",
            "GW_RECORDING_S3_BUCKET=b;GW_RECORDING_S3_ACCESS_KEY=a;GW_RECORDING_S3_SECRET_KEY=change-me "
                    + "| GW_RECORDING_S3_SECRET_KEY is still the example's placeholder",
            "GW_RECORDING_S3_BUCKET=b;GW_RECORDING_S3_SECRET_KEY_FILE=/nonexistent/secret "
                    + "| GW_RECORDING_S3_SECRET_KEY_FILE: cannot read /nonexistent/secret"})
    void settingsThatCannotWorkAreRefused(String settings, String message) {
        ConfigException error = assertThrows(ConfigException.class, () -> NodeConfig.from(source(settings)));
        assertTrue(error.getMessage().startsWith(message), error.getMessage());
    }

    @Test
    void aNodeAloneRecordsIntoItsDataDirectoryAndNamesNoSecret() {
        RecordingSettings alone = NodeConfig.from(source("GW_RECORDING=all;GW_DATA_DIR=/var/lib/fg")).recordings();
        assertEquals(java.nio.file.Path.of("/var/lib/fg/recordings"), alone.directory());
        RecordingSettings s3 = NodeConfig.from(source("GW_RECORDING=all;" + MEMBERS + ";GW_DB_URL=postgresql://db/fg;"
                + "GW_RECORDING_S3_BUCKET=rec;GW_RECORDING_S3_ACCESS_KEY=AKIAEXAMPLE;"
                + "GW_RECORDING_S3_SECRET_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY")).recordings();
        assertEquals(null, s3.directory());
        assertFalse(s3.toString().contains("wJalr") || s3.toString().contains("AKIA"), s3.toString());
        assertEquals("recording=off", NodeConfig.from(source("")).recordings().toString());
    }

    @Test
    void thePolicyFollowsTheModeThenTheEntry() {
        RecordingPolicy all = policy("all");
        RecordingPolicy entries = policy("entries");
        RecordingPolicy off = policy("off");
        assertTrue(all.adHoc());
        assertFalse(entries.adHoc());
        assertFalse(off.adHoc());
        for (var row : List.of(
                List.of(all, Map.of(), true), List.of(all, Map.of("enable_recording", false), false),
                List.of(entries, Map.of(), false), List.of(entries, Map.of("enable_recording", true), true),
                List.of(entries, Map.of("enable_recording", "true"), true), List.of(off, Map.of(), false),
                List.of(off, Map.of("enable_recording", false), false))) {
            @SuppressWarnings("unchecked")
            Map<String, Object> entry = (Map<String, Object>) row.get(1);
            assertEquals(row.get(2), ((RecordingPolicy) row.get(0)).forEntry(entry), row::toString);
        }
        ConflictException refused = assertThrows(ConflictException.class,
                () -> off.forEntry(Map.of("enable_recording", true)));
        assertTrue(refused.getMessage().contains("must be recorded"), refused.getMessage());
        // A folder's word (its own or its nearest ancestor's) when the entry says nothing; the entry's wins.
        for (var row : List.of(List.of(entries, Map.of(), true, true), List.of(all, Map.of(), false, false),
                List.of(entries, Map.of("enable_recording", false), true, false),
                List.of(all, Map.of("enable_recording", true), false, true))) {
            @SuppressWarnings("unchecked")
            Map<String, Object> entry = (Map<String, Object>) row.get(1);
            assertEquals(row.get(3), ((RecordingPolicy) row.get(0)).forEntry(entry, (Boolean) row.get(2)),
                    row::toString);
        }
        ConflictException folder = assertThrows(ConflictException.class, () -> off.forEntry(Map.of(), true));
        assertTrue(folder.getMessage().contains("folder must be recorded"), folder.getMessage());

        // An admin may ask for an ad-hoc session to be recorded; nobody else may, and not where nothing is kept.
        Identity admin = new Identity("admin", "admin", Role.ADMIN, java.util.Set.of());
        Identity operator = new Identity("op", "op", Role.OPERATOR, java.util.Set.of());
        assertTrue(entries.adHoc(admin, true));
        assertFalse(entries.adHoc(admin, false));
        assertTrue(all.adHoc(operator, false));
        assertThrows(ForbiddenException.class, () -> entries.adHoc(operator, true));
        assertThrows(ConflictException.class, () -> off.adHoc(admin, true));
    }

    private static RecordingPolicy policy(String mode) {
        return new RecordingPolicy(NodeConfig.from(source("GW_RECORDING=" + mode)).recordings());
    }

    private static ConfigSource source(String settings) {
        Map<String, String> values = new HashMap<>();
        for (String pair : settings.split(";")) {
            if (!pair.isBlank()) {
                int eq = pair.indexOf('=');
                values.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
            }
        }
        return new ConfigSource(values);
    }
}
