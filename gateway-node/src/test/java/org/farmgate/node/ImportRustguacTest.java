package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.node.config.ConfigSource;
import org.farmgate.node.config.NodeConfig;
import org.farmgate.testkit.db.RustguacDatabase;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * Someone leaving rustguac: its database imported by the command, then the node started on what it imported. Every
 * rustguac key still works as it did, and the reports and audit log hold rustguac's past.
 */
class ImportRustguacTest {

    @Test
    void aNodeStartedAfterTheImportTakesRustguacsKeysAndShowsItsPast() throws Exception {
        Path data = Files.createTempDirectory("farmgate-import");
        // the fixture's sessions are of February 2026: kept here whatever today is, so no purge takes them mid-test
        Map<String, String> settings = Map.of("GW_DATA_DIR", data.toString(), "GW_NODE_ID", "test-node",
                "GW_HISTORY_RETENTION_DAYS", "36500");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int status = ImportRustguac.run(NodeConfig.from(new ConfigSource(settings)), RustguacDatabase.create(),
                Clock.systemUTC(), new PrintStream(printed, true, StandardCharsets.UTF_8));
        String said = printed.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, said);
        assertTrue(said.contains("3 sessions, 2 people, 2 group mappings, 2 tokens, 2 audit events"), said);
        assertTrue(said.contains("skipped admin key office-only: limited to 10.0.0.0/8"), said);
        assertFalse(said.contains("note:"), said);

        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), settings)) {
            assertEquals(200, node.request("GET", "/api/cluster", RustguacDatabase.ADMIN_KEY, null).statusCode(),
                    "rustguac's admin key, unchanged");
            assertEquals(200, node.request("GET", "/api/sessions", RustguacDatabase.USER_TOKEN, null).statusCode(),
                    "alice's own rustguac token, unchanged");
            assertEquals(403, node.request("GET", "/api/cluster", RustguacDatabase.USER_TOKEN, null).statusCode(),
                    "capped at operator, as in rustguac");
            JsonNode history = TestNode.json(node.request("GET", "/api/reports/sessions?user=alice@farm.example",
                    TestNode.ADMIN, null));
            assertEquals(1, history.get("total").asLong(), history::toString);
            assertEquals("shared/prod/db1", history.get("sessions").get(0).get("address_book_entry").asText());
            List<String> people = new ArrayList<>();
            TestNode.json(node.request("GET", "/api/users", TestNode.ADMIN, null))
                    .forEach(person -> people.add(person.get("email").asText() + ":" + person.get("role").asText()));
            assertEquals(List.of("alice@farm.example:admin", "bob@farm.example:poweruser"), people.stream().sorted()
                    .toList());
            assertTrue(TestNode.json(node.request("GET", "/api/audit/verify", TestNode.ADMIN, null)).get("intact")
                    .asBoolean());
        }

        ByteArrayOutputStream missing = new ByteArrayOutputStream();
        assertEquals(1, ImportRustguac.run(NodeConfig.from(new ConfigSource(settings)), data.resolve("nope.db"),
                Clock.systemUTC(), new PrintStream(missing, true, StandardCharsets.UTF_8)));
        assertTrue(missing.toString(StandardCharsets.UTF_8).contains("no rustguac database at"), missing::toString);
    }

    @Test
    void anImportOlderThanTheRetentionSaysTheFirstPurgeTakesIt() throws Exception {
        Map<String, String> settings = Map.of("GW_DATA_DIR", Files.createTempDirectory("farmgate-import").toString(),
                "GW_NODE_ID", "test-node", "GW_HISTORY_RETENTION_DAYS", "30");
        // the fixture's oldest session started 2026-02-10 09:00: 31 days later it is past a 30-day retention
        Clock march = Clock.fixed(Instant.parse("2026-03-13T09:00:00Z"), ZoneOffset.UTC);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        assertEquals(0, ImportRustguac.run(NodeConfig.from(new ConfigSource(settings)), RustguacDatabase.create(),
                march, new PrintStream(printed, true, StandardCharsets.UTF_8)));
        String said = printed.toString(StandardCharsets.UTF_8);
        assertTrue(said.contains("note: its sessions go back to 2026-02-10T09:00:00Z, older than this cluster keeps "
                + "history (GW_HISTORY_RETENTION_DAYS=30)"), said);
    }
}
