package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
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

/** {@code /api/sessions} over real HTTP: shapes, validation, roles and limits. */
class SessionsApiTest {

    private static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_MAX_SESSIONS_PER_USER", "3",
                "GW_MAX_BODY_BYTES", "2048"));
    }

    @AfterAll
    static void stop() throws Exception {
        node.close();
    }

    @Test
    void createReturnsSessionInfoWithoutCredentials() throws Exception {
        HttpResponse<String> response = node.request("POST", "/api/sessions", TestNode.ADMIN,
                "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\",\"username\":\"bench\",\"password\":\"s3cr3t\","
                        + "\"domain\":\"CORP\",\"ignore_cert\":true,\"security\":\"any\",\"width\":1920,"
                        + "\"height\":1080}");
        assertEquals(201, response.statusCode(), response.body());
        assertFalse(response.body().contains("s3cr3t"), "no credential in a response");
        JsonNode body = TestNode.json(response);
        String id = body.get("session_id").asText();
        assertEquals("rdp", body.get("session_type").asText());
        assertEquals("pending", body.get("status").asText());
        assertEquals("/ws/" + id, body.get("ws_url").asText());
        assertEquals("127.0.0.1", body.get("hostname").asText());
        assertEquals("bench", body.get("username").asText());
        assertEquals("admin", body.get("created_by").asText());
        assertEquals(0, body.get("active_connections").asInt());
        assertEquals("test-node", body.get("node_id").asText());
        assertEquals(37, body.get("estimated_memory_mb").asInt(), "RDP 1920x1080 costs what guacd 1.6 measured");
        assertTrue(body.get("created_at").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d.*Z"));
        delete(id);
    }

    @Test
    void listGetAndDeleteSeeOnlyTheCallersSessions() throws Exception {
        String carol = node.createToken("carol", "poweruser");
        String dave = node.createToken("dave", "poweruser");
        SessionInfo mine = node.createSession(carol, "{\"hostname\":\"127.0.0.1\"}");
        SessionInfo theirs = node.createSession(dave, "{\"hostname\":\"127.0.0.1\"}");

        JsonNode list = TestNode.json(node.request("GET", "/api/sessions", carol, null));
        assertEquals(1, list.size());
        assertEquals(mine.sessionId(), list.get(0).get("session_id").asText());
        assertEquals(404, node.request("GET", "/api/sessions/" + theirs.sessionId(), carol, null).statusCode());
        assertEquals(404, node.request("DELETE", "/api/sessions/" + theirs.sessionId(), carol, null).statusCode());
        assertEquals(403, node.request("GET", "/api/sessions?all=true", carol, null).statusCode());

        JsonNode all = TestNode.json(node.request("GET", "/api/sessions?all=true", TestNode.ADMIN, null));
        assertTrue(all.size() >= 2);
        assertEquals(200, node.request("GET", "/api/sessions/" + theirs.sessionId(), TestNode.ADMIN, null)
                .statusCode());

        assertEquals(204, node.request("DELETE", "/api/sessions/" + mine.sessionId(), carol, null).statusCode());
        assertEquals(404, node.request("GET", "/api/sessions/" + mine.sessionId(), carol, null).statusCode());
        delete(theirs.sessionId());
        node.assertNothingLeaks();
    }

    static Stream<Arguments> invalidBodies() {
        return Stream.of(
                Arguments.of("{}", "field 'hostname' is required"),
                Arguments.of("{\"hostname\":\"127.0.0.1\",\"colour\":1}", "unknown field 'colour'"),
                Arguments.of("{\"hostname\":\"127.0.0.1\",\"port\":\"22\"}", "field 'port' must be a whole number"),
                Arguments.of("{\"hostname\":\"127.0.0.1\",\"port\":70000}", "field 'port' must be between 1 and 65535"),
                Arguments.of("{\"hostname\":\"127.0.0.1\",\"session_type\":\"telnet\"}",
                        "field 'session_type': unknown value 'telnet'"),
                Arguments.of("{\"hostname\":\"127.0.0.1\",\"domain\":\"CORP\"}",
                        "field 'domain' does not apply to ssh sessions"),
                Arguments.of("{\"hostname\":\"127.0.0.1\",\"recording_path\":\"/etc\"}",
                        "field 'recording_path' is not allowed"),
                Arguments.of("{\"session_type\":\"vnc\",\"hostname\":\"127.0.0.1\",\"dest_host\":\"10.0.0.1\"}",
                        "field 'dest_host' is not allowed"),
                Arguments.of("{\"hostname\":\"127.0.0.1\",\"password\":{\"a\":1}}",
                        "field 'password' must be a string, a whole number or a boolean"),
                Arguments.of("{\"hostname\":\"127.0.0.1\",\"timezone\":\"Mars/Olympus\"}",
                        "field 'timezone' must be an IANA time zone"),
                Arguments.of("{\"hostname\":\"10.1.2.3\"}", "outside the networks allowed for ssh"),
                Arguments.of("{\"hostname\":\"no-such-host.invalid\"}", "does not resolve"),
                Arguments.of("{\"hostname\":\"a b\"}", "field 'hostname': 'a b' is not a host name"),
                Arguments.of("[1,2]", "request body must be a JSON object"),
                Arguments.of("{\"hostname\":", "request body is not valid JSON"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidBodies")
    void invalidInputIs400NamingTheProblem(String body, String expected) throws Exception {
        HttpResponse<String> response = node.request("POST", "/api/sessions", TestNode.ADMIN, body);
        assertEquals(400, response.statusCode(), response.body());
        String error = TestNode.json(response).get("error").asText();
        assertTrue(error.contains(expected), () -> "'" + error + "' lacks '" + expected + "'");
    }

    @Test
    void aBodyOverTheLimitIs413() throws Exception {
        String big = "{\"hostname\":\"127.0.0.1\",\"password\":\"" + "x".repeat(4096) + "\"}";
        HttpResponse<String> response = node.request("POST", "/api/sessions", TestNode.ADMIN, big);
        assertEquals(413, response.statusCode());
        assertTrue(TestNode.json(response).get("error").asText().contains("2048 bytes"));
    }

    @Test
    void displaySizeIsClampedToSaneRanges() throws Exception {
        SessionInfo small = node.createSession(TestNode.ADMIN,
                "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\",\"width\":10,\"height\":10,\"dpi\":1}");
        SessionInfo defaults = node.createSession(TestNode.ADMIN, "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\"}");
        // 640x480 is the floor; the cost model charges by pixels.
        assertTrue(small.estimatedMemoryMb() < defaults.estimatedMemoryMb());
        assertEquals(17, small.estimatedMemoryMb());
        delete(small.sessionId());
        delete(defaults.sessionId());
    }

    @Test
    void rolesAreEnforced() throws Exception {
        String viewer = node.createToken("viewer-1", "viewer");
        String operator = node.createToken("operator-1", "operator");
        assertEquals(401, node.request("GET", "/api/sessions", null, null).statusCode());
        HttpResponse<String> bad = node.request("GET", "/api/sessions", "nope", null);
        assertEquals(401, bad.statusCode());
        assertEquals("invalid or expired API token", TestNode.json(bad).get("error").asText());
        assertEquals(200, node.request("GET", "/api/sessions", viewer, null).statusCode());
        HttpResponse<String> denied = node.request("POST", "/api/sessions", operator, "{\"hostname\":\"127.0.0.1\"}");
        assertEquals(403, denied.statusCode());
        assertTrue(TestNode.json(denied).get("error").asText().contains("poweruser"));
        assertEquals(200, node.request("POST", "/api/ws-ticket", viewer, null).statusCode());
        assertEquals(403, node.request("GET", "/api/tokens", operator, null).statusCode());
    }

    @Test
    void perUserLimitIs429AndCountsOnlyLiveSessions() throws Exception {
        String erin = node.createToken("erin", "poweruser");
        String[] ids = new String[3];
        for (int i = 0; i < 3; i++) {
            ids[i] = node.createSession(erin, "{\"hostname\":\"127.0.0.1\"}").sessionId();
        }
        HttpResponse<String> refused = node.request("POST", "/api/sessions", erin, "{\"hostname\":\"127.0.0.1\"}");
        assertEquals(429, refused.statusCode());
        assertTrue(TestNode.json(refused).get("error").asText().contains("erin"));
        assertEquals(204, node.request("DELETE", "/api/sessions/" + ids[0], erin, null).statusCode());
        ids[0] = node.createSession(erin, "{\"hostname\":\"127.0.0.1\"}").sessionId();
        for (String id : ids) {
            delete(id);
        }
    }

    @Test
    void unknownRoutesAndMethodsAnswerJson() throws Exception {
        HttpResponse<String> missing = node.request("GET", "/api/nothing", TestNode.ADMIN, null);
        assertEquals(404, missing.statusCode());
        assertTrue(TestNode.json(missing).has("error"));
        HttpResponse<String> method = node.request("PUT", "/api/sessions", TestNode.ADMIN, "{}");
        assertEquals(405, method.statusCode());
        assertTrue(TestNode.json(method).has("error"));
    }

    @Test
    void readinessSaysWhatItChecked() throws Exception {
        HttpResponse<String> ready = node.request("GET", "/api/ready", null, null);
        assertEquals(200, ready.statusCode(), ready.body());
        JsonNode checks = TestNode.json(ready).get("checks");
        assertTrue(checks.get("cluster").get("ok").asBoolean());
        assertTrue(checks.get("guacd").get("ok").asBoolean());
        assertTrue(checks.get("guacd").get("detail").asText().contains("answers"));
    }

    @Test
    void healthNeedsNoToken() throws Exception {
        HttpResponse<String> health = node.request("GET", "/api/health", null, null);
        assertEquals(200, health.statusCode());
        assertEquals("ok", TestNode.json(health).get("status").asText());
        HttpResponse<String> head = node.request("HEAD", "/api/health", null, null);
        assertEquals(200, head.statusCode(), "HEAD, as load balancers probe");
        assertEquals("", head.body());
        assertEquals(200, node.request("HEAD", "/api/ready", null, null).statusCode());
    }

    @Test
    void finishedSessionsStayReadableUntilTheRetentionEnds() throws Exception {
        SessionInfo session = node.sshSession();
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
        }
        node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
        SessionInfo ended = node.session(session.sessionId());
        assertEquals(0, ended.activeConnections());
        assertTrue(ended.endedAt() != null && ended.endReason() != null);
        assertNull(TestNode.json(node.request("GET", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null))
                .get("password"));
        node.assertNothingLeaks();
    }

    private static void delete(String id) throws Exception {
        assertEquals(204, node.request("DELETE", "/api/sessions/" + id, TestNode.ADMIN, null).statusCode());
    }
}
