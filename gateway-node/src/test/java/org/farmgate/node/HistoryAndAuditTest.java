package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A node alone keeps history and an audit log in its embedded database: who opened what, from where, how it ended;
 * who changed what. Read through the reports and the audit routes, by the roles that may, and only by them.
 */
class HistoryAndAuditTest {

    private static TestNode node;
    private static String auditor;
    private static String poweruser;
    private static String viewer;

    @BeforeAll
    static void start() throws Exception {
        // the balancer's forwarded address is believed from loopback only: the test's own requests come from there
        node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_TRUSTED_PROXIES", "127.0.0.1/32"));
        auditor = node.createToken("the-auditor", "auditor");
        poweruser = node.createToken("power", "poweruser");
        viewer = node.createToken("just-looking", "viewer");
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void aSessionsLifeIsInItsHistoryRowAndItsCreationInTheAuditLog() throws Exception {
        HttpResponse<String> created = node.request("POST", "/api/sessions", poweruser, "{\"hostname\":\"127.0.0.1\","
                + "\"username\":\"=HYPERLINK(\\\"http://evil\\\")\",\"password\":\"secret\"}",
                Map.of("X-Forwarded-For", "203.0.113.9, 198.51.100.4"));
        assertEquals(201, created.statusCode(), created::body);
        SessionInfo session = org.farmgate.model.Json.mapper().readValue(created.body(), SessionInfo.class);
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            ws.send("10.disconnect;");
            ws.awaitClose();
        }
        JsonNode row = awaitRow(session.sessionId(), "completed");
        assertEquals("ssh", row.get("session_type").asText());
        assertEquals("power", row.get("created_by").asText());
        assertEquals("198.51.100.4", row.get("client_address").asText(),
                "the hop the trusted balancer saw, not what the client wrote further left");
        assertEquals("completed", row.get("end_reason").asText());
        assertEquals("test-node", row.get("node_id").asText());
        assertTrue(row.get("bytes_to_client").asLong() > 0);
        assertTrue(row.get("duration_secs").asLong() >= 0);

        JsonNode audit = awaitAudit("session.create", session.sessionId());
        assertEquals("power", audit.get("actor_name").asText());
        assertEquals("poweruser", audit.get("actor_role").asText());
        assertEquals("success", audit.get("outcome").asText());
        assertEquals("198.51.100.4", audit.get("client_address").asText());

        // the CSV defuses the formula in the username and keeps rustguac's columns first
        HttpResponse<String> csv = node.request("GET", "/api/reports/sessions/csv?user=power", auditor, null);
        assertEquals(200, csv.statusCode(), csv::body);
        assertEquals("attachment; filename=\"session-history.csv\"", csv.headers().firstValue("Content-Disposition")
                .orElseThrow());
        String[] lines = csv.body().split("\r\n");
        assertTrue(lines[0].startsWith("Session ID,Type,Hostname,Username,User,Entry,Folder,Started,Ended,"
                + "Duration (secs),Status,Recording,"), lines[0]);
        assertTrue(lines[1].startsWith(session.sessionId() + ",ssh,127.0.0.1,\"'=HYPERLINK(\"\"http://evil\"\")\","
                + "power,"), lines[1]);
    }

    @Test
    void aDeleteBySomeoneElseClosesTheRowAsEndedByThem() throws Exception {
        SessionInfo session = node.createSession(poweruser, "{\"hostname\":\"127.0.0.1\",\"username\":\"u\"}");
        assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                .statusCode());
        JsonNode row = awaitRow(session.sessionId(), "completed");
        assertEquals("ended", row.get("end_reason").asText());
        assertEquals("admin", row.get("ended_by").asText());
        assertEquals("admin", awaitAudit("session.delete", session.sessionId()).get("actor_name").asText());
    }

    @Test
    void aPendingSessionThatExpiresIsInHistory() throws Exception {
        try (TestNode quick = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_SESSION_PENDING_TIMEOUT_SECS",
                "1"))) {
            SessionInfo session = quick.sshSession();
            quick.awaitStatus(session.sessionId(), SessionStatus.EXPIRED);
            TestNode.await(() -> rows(quick, TestNode.ADMIN, "").stream().anyMatch(row -> row.get("session_id")
                    .asText().equals(session.sessionId()) && row.get("end_reason").asText("").equals("expired")),
                    "no expired row");
        }
    }

    @Test
    void everyoneReadsTheirOwnHistoryAndOnlyAdminsAndAuditorsReadEveryonesAndTheAuditLog() throws Exception {
        SessionInfo mine = node.createSession(poweruser, "{\"hostname\":\"127.0.0.1\",\"username\":\"u\"}");
        SessionInfo admins = node.sshSession();
        awaitRow(admins.sessionId(), "pending");
        awaitRow(mine.sessionId(), "pending");
        List<String> seenByPoweruser = rows(node, poweruser, "").stream().map(row -> row.get("created_by").asText())
                .distinct().toList();
        assertEquals(List.of("power"), seenByPoweruser, "a poweruser reads their own history only");
        assertEquals(List.of(), rows(node, viewer, ""));
        assertTrue(rows(node, auditor, "").size() >= 2);
        for (String path : List.of("/api/audit", "/api/audit/verify", "/api/reports/summary", "/api/reports/top-users",
                "/api/admin/token-audit", "/api/users", "/api/admin/group-mappings")) {
            assertEquals(403, node.request("GET", path, poweruser, null).statusCode(), path);
            assertEquals(200, node.request("GET", path, auditor, null).statusCode(), path);
            assertEquals(200, node.request("GET", path, TestNode.ADMIN, null).statusCode(), path);
        }
    }

    static Stream<Arguments> auditorRefusals() {
        return Stream.of(
                Arguments.of("POST", "/api/sessions", "{\"hostname\":\"127.0.0.1\",\"username\":\"u\"}"),
                Arguments.of("POST", "/api/tokens", "{\"name\":\"x\",\"role\":\"admin\"}"),
                Arguments.of("DELETE", "/api/tokens/power", null),
                Arguments.of("POST", "/api/cluster/nodes/test-node/drain", null),
                Arguments.of("GET", "/api/cluster", null),
                Arguments.of("PUT", "/api/users/oidc:someone/role", "{\"role\":\"admin\"}"),
                Arguments.of("POST", "/api/users/oidc:someone/disable", null),
                Arguments.of("DELETE", "/api/users/oidc:someone", null),
                Arguments.of("POST", "/api/admin/group-mappings", "{\"group\":\"g\",\"role\":\"admin\"}"),
                Arguments.of("DELETE", "/api/admin/group-mappings/1", null),
                Arguments.of("GET", "/api/sessions?all=true", null));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("auditorRefusals")
    void anAuditorReadsAndChangesNothing(String method, String path, String body) throws Exception {
        HttpResponse<String> response = node.request(method, path, auditor, body);
        assertTrue(response.statusCode() == 403 || path.equals("/api/sessions?all=true")
                && response.statusCode() == 200 && TestNode.json(response).size() == 0, response::body);
        if (response.statusCode() == 403) {
            TestNode.await(() -> audit("outcome=refused&actor=the-auditor").stream().anyMatch(event ->
                    event.get("detail").asText("").equals("HTTP 403")), "the refusal is not in the audit log");
        }
    }

    static Stream<Arguments> badPeopleCalls() {
        return Stream.of(
                Arguments.of("PUT", "/api/users/oidc:nobody/role", "{\"role\":\"operator\"}", 404, "no person"),
                Arguments.of("PUT", "/api/users/oidc:nobody/role", "{}", 400, "field 'role' is required"),
                Arguments.of("PUT", "/api/users/oidc:nobody/role", "{\"role\":\"root\"}", 400, "'role'"),
                Arguments.of("POST", "/api/users/nobody@example.com/enable", null, 404, "no person"),
                Arguments.of("DELETE", "/api/users/oidc:nobody", null, 404, "no person"),
                Arguments.of("GET", "/api/users/oidc:nobody", null, 404, "no person"),
                Arguments.of("POST", "/api/admin/group-mappings", "{\"role\":\"viewer\"}", 400, "'group'"),
                Arguments.of("POST", "/api/admin/group-mappings", "{\"group\":\"a\\nb\",\"role\":\"viewer\"}", 400,
                        "control characters"),
                Arguments.of("POST", "/api/admin/group-mappings", "{\"group\":\"ops\"}", 400, "'role'"),
                Arguments.of("POST", "/api/admin/group-mappings", "{\"group\":\"ops\",\"role\":\"viewer\",\"x\":1}",
                        400, "unknown field 'x'"),
                Arguments.of("PUT", "/api/admin/group-mappings/abc", "{\"role\":\"viewer\"}", 404, "by their number"),
                Arguments.of("PUT", "/api/admin/group-mappings/999999", "{\"role\":\"viewer\"}", 404,
                        "no group mapping 999999"),
                Arguments.of("DELETE", "/api/admin/group-mappings/999999", null, 404, "no group mapping 999999"));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("badPeopleCalls")
    void aBadCallOnPeopleOrMappingsSaysWhatIsWrong(String method, String path, String body, int status,
            String says) throws Exception {
        HttpResponse<String> response = node.request(method, path, TestNode.ADMIN, body);
        assertEquals(status, response.statusCode(), response::body);
        assertTrue(response.body().contains(says), response::body);
    }

    @Test
    void aGroupMappingIsMadeChangedAndDeletedOnANodeAlone() throws Exception {
        HttpResponse<String> made = node.request("POST", "/api/admin/group-mappings", TestNode.ADMIN,
                "{\"group\":\"night-shift\",\"role\":\"operator\"}");
        assertEquals(201, made.statusCode(), made::body);
        String id = TestNode.json(made).get("id").asText();
        assertEquals("night-shift", TestNode.json(made).get("oidc_group").asText());
        assertEquals(204, node.request("PUT", "/api/admin/group-mappings/" + id, TestNode.ADMIN,
                "{\"role\":\"viewer\"}").statusCode());
        JsonNode listed = TestNode.json(node.request("GET", "/api/admin/group-mappings", auditor, null));
        assertEquals("viewer", listed.get(0).get("role").asText(), listed::toString);
        assertEquals(204, node.request("DELETE", "/api/admin/group-mappings/" + id, TestNode.ADMIN, null)
                .statusCode());
        assertEquals(0, TestNode.json(node.request("GET", "/api/admin/group-mappings", TestNode.ADMIN, null)).size());
        awaitAudit("mapping.update", id);
        assertEquals("role viewer", audit("action=mapping.update").get(0).get("detail").asText());
    }

    static Stream<Arguments> hostileFilters() {
        return Stream.of(
                Arguments.of("user", "'; DROP TABLE session_history; --", 200),
                Arguments.of("user", "' OR '1'='1", 200),
                Arguments.of("entry", "%", 200),
                Arguments.of("user", "_", 200),
                Arguments.of("type", "ssh' OR 1=1 --", 400),
                Arguments.of("from", "yesterday", 400),
                Arguments.of("limit", "1e9", 400),
                Arguments.of("limit", "5000", 400),
                Arguments.of("sort", "x", 400));
    }

    @ParameterizedTest(name = "{0}={1}")
    @MethodSource("hostileFilters")
    void hostileFiltersMatchNothingOrAreRefusedByName(String parameter, String value, int status) throws Exception {
        HttpResponse<String> response = node.request("GET", "/api/reports/sessions?" + parameter + "="
                + URLEncoder.encode(value, StandardCharsets.UTF_8), TestNode.ADMIN, null);
        assertEquals(status, response.statusCode(), response::body);
        if (status == 200) {
            assertEquals(0, TestNode.json(response).get("total").asLong(), response::body);
        } else {
            assertTrue(response.body().contains("'" + parameter + "'"), response::body);
        }
        assertEquals(200, node.request("GET", "/api/reports/summary", TestNode.ADMIN, null).statusCode());
    }

    @Test
    void aWrongTokenIsRefusedInTheLogAndAHandEditedRowIsFound() throws Exception {
        assertEquals(401, node.request("GET", "/api/sessions", "gwt_not-a-token", null).statusCode());
        TestNode.await(() -> audit("action=auth&outcome=refused").stream().anyMatch(event -> event.get("target")
                .asText().equals("GET /api/sessions")), "the refused token is not in the audit log");
        node.createToken("edited-later", "viewer");
        awaitAudit("token.create", "edited-later");
        assertTrue(TestNode.json(node.request("GET", "/api/audit/verify", auditor, null)).get("intact").asBoolean());

        try (Connection connection = DriverManager.getConnection(node.node.config().records().store().jdbcUrl(),
                "farmgate", ""); Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE audit_log SET actor_name = 'someone-else' WHERE action = 'token.create' "
                    + "AND target = 'edited-later'");
        }
        JsonNode check = TestNode.json(node.request("GET", "/api/audit/verify", auditor, null));
        assertFalse(check.get("intact").asBoolean());
        long edited = audit("action=token.create&target=edited-later").get(0).get("seq").asLong();
        assertEquals(edited, check.get("first_broken_seq").asLong(), check::toString);
        assertTrue(check.get("problem").asText().contains("edited"), check::toString);
    }

    private static JsonNode awaitRow(String sessionId, String status) {
        List<JsonNode> found = new ArrayList<>();
        TestNode.await(() -> {
            found.clear();
            rows(node, TestNode.ADMIN, "").stream().filter(row -> row.get("session_id").asText().equals(sessionId)
                    && row.get("status").asText().equals(status)).forEach(found::add);
            return !found.isEmpty();
        }, "no " + status + " row for " + sessionId);
        return found.get(0);
    }

    private static JsonNode awaitAudit(String action, String target) {
        List<JsonNode> found = new ArrayList<>();
        TestNode.await(() -> {
            found.clear();
            found.addAll(audit("action=" + action + "&target=" + URLEncoder.encode(target, StandardCharsets.UTF_8)));
            return !found.isEmpty();
        }, "no " + action + " of " + target + " in the audit log");
        return found.get(0);
    }

    private static List<JsonNode> audit(String query) {
        try {
            HttpResponse<String> response = node.request("GET", "/api/audit?" + query, auditor, null);
            assertEquals(200, response.statusCode(), response::body);
            List<JsonNode> out = new ArrayList<>();
            TestNode.json(response).get("events").forEach(out::add);
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<JsonNode> rows(TestNode on, String token, String query) {
        try {
            HttpResponse<String> response = on.request("GET", "/api/reports/sessions?" + query, token, null);
            assertEquals(200, response.statusCode(), response::body);
            List<JsonNode> out = new ArrayList<>();
            TestNode.json(response).get("sessions").forEach(out::add);
            return out;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
