package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import org.farmgate.model.SessionInfo;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.testkit.client.WsClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code /api/tokens} and {@code /api/ws-ticket} over real HTTP. */
class TokensApiTest {

    private static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start();
    }

    @AfterAll
    static void stop() throws Exception {
        node.close();
    }

    @Test
    void aTokenIsShownOnceAndStoredOnlyAsAHash() throws Exception {
        HttpResponse<String> created = node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"ci-bot\",\"role\":\"operator\",\"groups\":[\"ops\"]}");
        assertEquals(201, created.statusCode(), created.body());
        JsonNode body = TestNode.json(created);
        String token = body.get("token").asText();
        assertTrue(token.matches("gwt_[0-9a-f]{64}"), token);
        assertEquals("operator", body.get("role").asText());

        HttpResponse<String> list = node.request("GET", "/api/tokens", TestNode.ADMIN, null);
        assertFalse(list.body().contains(token), "the token is never shown again");
        assertFalse(list.body().contains("hash"));
        assertTrue(list.body().contains("\"ci-bot\""));

        assertEquals(200, node.request("GET", "/api/sessions", token, null).statusCode());
        assertEquals(204, node.request("DELETE", "/api/tokens/ci-bot", TestNode.ADMIN, null).statusCode());
        assertEquals(401, node.request("GET", "/api/sessions", token, null).statusCode());
        assertEquals(404, node.request("DELETE", "/api/tokens/ci-bot", TestNode.ADMIN, null).statusCode());
    }

    @Test
    void namesAreUniqueAndValidated() throws Exception {
        node.createToken("unique-1", "viewer");
        assertEquals(409, node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"unique-1\",\"role\":\"viewer\"}").statusCode());
        assertEquals(409, node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"admin\",\"role\":\"viewer\"}").statusCode());
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN, "{\"name\":\"../x\",\"role\":\"viewer\"}"),
                "field 'name'");
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN, "{\"name\":\"x\",\"role\":\"root\"}"),
                "invalid value for field 'role': unknown role 'root'");
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN, "{\"name\":\"x\"}"), "field 'role' is required");
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"x\",\"role\":\"viewer\",\"scopes\":[]}"), "unknown field 'scopes'");
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"x\",\"role\":\"viewer\",\"expires_at\":\"2001-01-01T00:00:00Z\"}"),
                "field 'expires_at' must be in the future");
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"x\",\"role\":\"viewer\",\"expires_at\":\"tomorrow\"}"), "invalid value for field 'expires_at'");
        HttpResponse<String> wrongType = node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"x\",\"role\":\"viewer\",\"groups\":\"ops\"}");
        assertError(wrongType, "invalid value for field 'groups': expected a list");
        org.junit.jupiter.api.Assertions.assertFalse(wrongType.body().contains("java."), wrongType.body());
        // Once a 500 each (a NullPointerException).
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN, "null"), "request body must be a JSON object");
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"x\",\"role\":\"viewer\",\"groups\":[null]}"), "field 'groups' must be a list");
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"x\",\"role\":\"viewer\",\"groups\":[\"\"]}"), "field 'groups' must be a list");
    }

    /** Parsers differ on which of two equal keys wins: "role" twice must not be read as either. */
    @Test
    void aFieldGivenTwiceIsRefused() throws Exception {
        assertError(node.request("POST", "/api/tokens", TestNode.ADMIN,
                "{\"name\":\"twice\",\"role\":\"viewer\",\"role\":\"admin\"}"),
                "field 'role' appears more than once");
        assertEquals(404, node.request("DELETE", "/api/tokens/twice", TestNode.ADMIN, null).statusCode(),
                "no token was made");
        assertError(node.request("POST", "/api/sessions", TestNode.ADMIN,
                "{\"hostname\":\"10.9.9.9\",\"username\":\"a\",\"hostname\":\"127.0.0.1\"}"),
                "field 'hostname' appears more than once");
    }

    @Test
    void onlyAdminsManageTokens() throws Exception {
        String power = node.createToken("power-1", "poweruser");
        assertEquals(403, node.request("POST", "/api/tokens", power, "{\"name\":\"y\",\"role\":\"admin\"}")
                .statusCode());
        assertEquals(403, node.request("DELETE", "/api/tokens/power-1", power, null).statusCode());
    }

    @Test
    void ticketsHaveTheDocumentedShape() throws Exception {
        String ticket = node.ticket(TestNode.ADMIN);
        assertTrue(ticket.matches("wst_[A-Za-z0-9_-]+\\.[0-9a-f]{64}"), ticket + ": its issuer, then the secret; safe in a URL");
        assertEquals(401, node.request("POST", "/api/ws-ticket", null, null).statusCode());
    }

    @Test
    void ownershipFollowsTheTokenNotItsName() throws Exception {
        String first = node.createToken("reused", "poweruser");
        SessionInfo owned = node.createSession(first, SSH);
        assertEquals(204, node.request("DELETE", "/api/tokens/reused", TestNode.ADMIN, null).statusCode());
        String second = node.createToken("reused", "poweruser");
        assertEquals("[]", node.request("GET", "/api/sessions", second, null).body(),
                "a new token under a revoked one's name inherits nothing");
        assertEquals(404, node.request("DELETE", "/api/sessions/" + owned.sessionId(), second, null).statusCode());
        assertEquals(204, node.request("DELETE", "/api/sessions/" + owned.sessionId(), TestNode.ADMIN, null)
                .statusCode());
    }

    @Test
    void aRevokedTokensTicketNoLongerAttaches() throws Exception {
        String token = node.createToken("revoked-with-ticket", "poweruser");
        SessionInfo session = node.createSession(token, SSH);
        String ticket = node.ticket(token);
        assertEquals(204, node.request("DELETE", "/api/tokens/revoked-with-ticket", TestNode.ADMIN, null)
                .statusCode());
        try (WsClient ws = node.connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
            ws.awaitClose();
            assertEquals(String.valueOf(GuacamoleStatus.CLIENT_UNAUTHORIZED.code()), ws.closeReason());
        }
        node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null);
    }

    private static final String SSH = "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\"}";

    private static void assertError(HttpResponse<String> response, String expected) throws Exception {
        assertEquals(400, response.statusCode(), response.body());
        String error = TestNode.json(response).get("error").asText();
        assertTrue(error.contains(expected), () -> "'" + error + "' lacks '" + expected + "'");
    }
}
