package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.model.Watcher;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticConnection;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * Share links: a session's owner lets others watch (read-only) or work with them (collaborative), through any node.
 * Each watcher is a guacd join of the session's connection. The synthetic guacd records everything a user sends, and
 * does not honour {@code read-only} itself, so a key that reaches it is a key the node let through.
 */
class SharingTest {

    private static final SyntheticGuacdOptions STREAMING = new SyntheticGuacdOptions()
            .stream(Duration.ofMillis(200), 200);
    private static final String SSH = "{\"hostname\":\"127.0.0.1\",\"username\":\"bench\",\"password\":\"secret\"}";
    /** What a hostile watcher types: a key press, a mouse move, a clipboard stream, a resize. */
    private static final List<String> INPUT = List.of("3.key,5.65507,1.1;", "5.mouse,2.10,2.10,1.0;",
            "9.clipboard,1.0,10.text/plain;", "4.blob,1.0,4.aGk=;", "3.end,1.0;", "4.size,4.1920,4.1080;");

    @Test
    void aReadOnlyWatcherSeesTheDisplayButNoneOfItsInputReachesGuacd() throws Exception {
        try (TestNode node = TestNode.start(STREAMING, Map.of())) {
            String alice = node.createToken("alice", "poweruser");
            SessionInfo session = node.createSession(alice, SSH);
            try (WsClient owner = attach(node, session, node.ticket(alice))) {
                owner.awaitInstruction("sync");
                SyntheticConnection owned = node.guacd.lastSession();
                JsonNode share = share(node, alice, session, "{\"mode\":\"read-only\"}");
                assertEquals("read-only", share.get("mode").asText());
                assertEquals("/#share=" + share.get("share_token").asText(), share.get("share_url").asText());

                JsonNode granted = shareTicket(node, share.get("share_token").asText(), "bob");
                assertEquals(session.sessionId(), granted.get("session_id").asText());
                assertEquals("alice", granted.get("owner").asText());
                try (WsClient watcher = attach(node, session, granted.get("ticket").asText())) {
                    watcher.awaitInstruction("size"); // the whole display, as guacd sends a joining user
                    Instruction sync = watcher.awaitInstruction("sync");
                    SyntheticConnection watching = node.guacd.lastSession();
                    assertEquals(owned.connectionId(), watching.joined(), "the watcher joined the session");
                    assertEquals("true", watching.connectValues().get("read-only"), "guacd is told read-only");
                    assertEquals("", watching.connectValues().getOrDefault("password", ""),
                            "a watcher's join sends no credential");
                    assertEquals(List.of("bob"), watching.handshake().get("name"));

                    INPUT.forEach(watcher::send);
                    watcher.send(Instruction.of("sync", sync.arg(0)).encode());
                    owner.send("3.key,5.65507,1.1;");
                    TestNode.await(() -> opcodes(owned).contains("key"), "the owner's key never reached guacd");
                    TestNode.await(() -> opcodes(watching).contains("sync"), "the watcher's sync never went on");
                    assertEquals(List.of(), opcodes(watching).stream().filter(op -> !op.equals("sync")).toList(),
                            "a read-only watcher's input reached guacd");
                    TestNode.await(() -> metrics(node).contains("farmgate_watcher_input_dropped_total 6.0"),
                            "dropped input not counted while the watcher is still there");

                    SessionInfo seen = node.session(session.sessionId());
                    assertEquals(2, seen.activeConnections());
                    assertEquals(List.of("bob"), seen.watchers().stream().map(Watcher::name).toList());
                    assertTrue(seen.watchers().get(0).readOnly());
                    assertEquals(share.get("share_id").asText(), seen.watchers().get(0).shareId());
                }
                TestNode.await(() -> watchers(node, session).isEmpty(), "the watcher's going was not seen");
                assertEquals(SessionStatus.ACTIVE, node.session(session.sessionId()).status(),
                        "a watcher's going leaves the session running");
                assertTrue(metrics(node).contains("farmgate_watcher_input_dropped_total 6.0"), "counted once");
            }
            node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
            node.assertNothingLeaks();
        }
    }

    /**
     * The read-only filter on a stream cut anywhere: the same watcher input, split at every point and at random into
     * up to four messages, some cuts inside an element's length or value; guacd gets exactly its syncs and nops, in
     * order, and nothing else, and every ping is echoed.
     */
    @Test
    void theReadOnlyFilterHoldsWhereverTheStreamIsCut() throws Exception {
        try (TestNode node = TestNode.start(STREAMING, Map.of())) {
            SessionInfo session = node.sshSession();
            try (WsClient owner = node.attach(session)) {
                owner.awaitInstruction("sync");
                String token = share(node, TestNode.ADMIN, session, "{}").get("share_token").asText();
                try (WsClient watcher = attach(node, session, shareTicket(node, token, null).get("ticket")
                        .asText())) {
                    watcher.awaitInstruction("sync");
                    SyntheticConnection watching = node.guacd.lastSession();
                    java.util.Random random = new java.util.Random(7);
                    List<String> expected = new java.util.ArrayList<>();
                    int rounds = 0;
                    for (int cut = 1; rounds < 160; cut++, rounds++) {
                        String n = String.valueOf(100 + rounds);
                        String stream = "3.key,5.65507,1.1;" + Instruction.of("sync", n).encode()
                                + "5.mouse,2.10,2.20,1.1;0.,4.ping," + n.length() + "." + n + ";"
                                + "9.clipboard,1.0,10.text/plain;3.nop;4.size,4.1920,4.1080;";
                        List<String> parts = rounds < 80 ? split(stream, new int[] {cut % stream.length()})
                                : split(stream, random.ints(random.nextInt(4), 1, stream.length()).sorted()
                                        .distinct().toArray());
                        parts.forEach(watcher::send);
                        expected.add("sync " + n);
                        expected.add("nop");
                        assertEquals(Instruction.of("", "ping", n), watcher.awaitInstruction(""));
                    }
                    java.util.function.Supplier<List<String>> got = () -> watching.received().stream()
                            .filter(i -> !i.opcode().equals("sync") || Integer.parseInt(i.arg(0)) >= 100)
                            .map(i -> i.opcode().equals("sync") ? "sync " + i.arg(0) : i.opcode()).toList();
                    try {
                        TestNode.await(() -> got.get().size() >= expected.size(), "guacd did not get them all");
                    } catch (org.awaitility.core.ConditionTimeoutException e) {
                        // the comparison below says which
                    }
                    assertEquals(expected, got.get());
                }
            }
            node.assertNothingLeaks();
        }
    }

    private static List<String> split(String stream, int[] cuts) {
        List<String> parts = new java.util.ArrayList<>();
        int from = 0;
        for (int cut : cuts) {
            if (cut > from && cut < stream.length()) {
                parts.add(stream.substring(from, cut));
                from = cut;
            }
        }
        parts.add(stream.substring(from));
        return parts;
    }

    @Test
    void aCollaborativeWatcherTypesIntoTheSession() throws Exception {
        try (TestNode node = TestNode.start(STREAMING, Map.of())) {
            SessionInfo session = node.sshSession();
            try (WsClient owner = node.attach(session)) {
                owner.awaitInstruction("sync");
                JsonNode share = share(node, TestNode.ADMIN, session, "{\"mode\":\"collaborative\"}");
                String ticket = shareTicket(node, share.get("share_token").asText(), null).get("ticket").asText();
                try (WsClient watcher = attach(node, session, ticket)) {
                    watcher.awaitInstruction("sync");
                    SyntheticConnection watching = node.guacd.lastSession();
                    assertEquals("", watching.connectValues().getOrDefault("read-only", ""));
                    watcher.send("3.key,5.65507,1.1;");
                    TestNode.await(() -> opcodes(watching).contains("key"), "a collaborator's key was dropped");
                    assertEquals("guest", watchers(node, session).get(0).name());
                }
            }
            node.assertNothingLeaks();
        }
    }

    @Test
    void revokingALinkCutsItsWatchersAndRefusesItFromThenOn() throws Exception {
        try (TestNode node = TestNode.start(STREAMING, Map.of())) {
            SessionInfo session = node.sshSession();
            try (WsClient owner = node.attach(session)) {
                owner.awaitInstruction("sync");
                JsonNode share = share(node, TestNode.ADMIN, session, "{}");
                String token = share.get("share_token").asText();
                JsonNode early = shareTicket(node, token, "early");
                try (WsClient watcher = attach(node, session, shareTicket(node, token, "bob").get("ticket")
                        .asText())) {
                    watcher.awaitInstruction("sync");
                    assertEquals(1, list(node, TestNode.ADMIN, session).size());
                    String path = "/api/sessions/" + session.sessionId() + "/shares/" + share.get("share_id").asText();
                    assertEquals(204, node.request("DELETE", path, TestNode.ADMIN, null).statusCode());
                    watcher.awaitClose();
                    assertEquals(String.valueOf(GuacamoleStatus.CLIENT_FORBIDDEN.code()), watcher.closeReason());
                    assertEquals(404, node.request("DELETE", path, TestNode.ADMIN, null).statusCode());
                }
                assertEquals(401, node.request("POST", "/api/share-ticket", null, "{\"share\":\"" + token + "\"}")
                        .statusCode(), "a revoked link still traded for tickets");
                // A ticket issued before the revocation: the session's node checks the link again at the join.
                try (WsClient late = attach(node, session, early.get("ticket").asText())) {
                    late.awaitClose();
                    assertEquals(String.valueOf(GuacamoleStatus.CLIENT_FORBIDDEN.code()), late.closeReason());
                }
                assertEquals(0, list(node, TestNode.ADMIN, session).size());
                assertEquals(SessionStatus.ACTIVE, node.session(session.sessionId()).status());
                assertTrue(watchers(node, session).isEmpty());
            }
            node.assertNothingLeaks();
        }
    }

    @Test
    void onlyItsOwnerOrAnAdminSharesASessionAndBadRequestsSayWhy() throws Exception {
        try (TestNode node = TestNode.start(STREAMING, Map.of("GW_MAX_SHARES_PER_SESSION", "2"))) {
            String alice = node.createToken("alice", "poweruser");
            String carol = node.createToken("carol", "poweruser");
            SessionInfo session = node.createSession(alice, SSH);
            String shares = "/api/sessions/" + session.sessionId() + "/shares";
            assertEquals(404, node.request("POST", shares, carol, "{}").statusCode());
            assertEquals(404, node.request("GET", shares, carol, null).statusCode());
            assertEquals(401, node.request("POST", shares, null, "{}").statusCode());
            assertError(node.request("POST", shares, alice, "{\"mode\":\"write\"}"), 400, "field 'mode'");
            assertError(node.request("POST", shares, alice, "{\"expires_in_secs\":10}"), 400,
                    "field 'expires_in_secs' must be between 60 and 86400");
            assertError(node.request("POST", shares, alice, "{\"watchers\":3}"), 400, "unknown field 'watchers'");
            assertError(node.request("POST", "/api/share-ticket", null, "{}"), 400, "field 'share' is required");
            assertError(node.request("POST", "/api/share-ticket", null, "{\"share\":\"sht_00\"}"), 401,
                    "unknown, revoked or expired");

            JsonNode share = share(node, alice, session, "{\"expires_in_secs\":60}");
            share(node, TestNode.ADMIN, session, "{}"); // an admin may shadow anyone's session
            assertError(node.request("POST", shares, alice, "{}"), 429, "already has 2 share links");
            assertError(node.request("POST", "/api/share-ticket", null, "{\"share\":\""
                    + share.get("share_token").asText() + "\",\"name\":\"\\u0007bell\"}"), 400, "field 'name'");
            assertError(node.request("POST", "/api/share-ticket", null, "{\"share\":\""
                    + share.get("share_token").asText() + "\",\"name\":\"bob\\u202Enimda\"}"), 400,
                    "field 'name' must not contain U+202E");

            // The owner has not attached yet: there is no guacd connection to join.
            String ticket = shareTicket(node, share.get("share_token").asText(), null).get("ticket").asText();
            try (WsClient early = attach(node, session, ticket)) {
                early.awaitClose();
                assertEquals(String.valueOf(GuacamoleStatus.RESOURCE_CONFLICT.code()), early.closeReason());
            }
            // A watcher's ticket opens its own session only.
            SessionInfo other = node.createSession(alice, SSH);
            String another = shareTicket(node, share.get("share_token").asText(), null).get("ticket").asText();
            try (WsClient elsewhere = attach(node, other, another)) {
                elsewhere.awaitClose();
                assertEquals(String.valueOf(GuacamoleStatus.RESOURCE_NOT_FOUND.code()), elsewhere.closeReason());
            }
            node.request("DELETE", "/api/sessions/" + session.sessionId(), alice, null);
            node.request("DELETE", "/api/sessions/" + other.sessionId(), alice, null);
            node.assertNothingLeaks();
        }
    }

    @Test
    void theSessionsEndEndsItsWatchersAndTheWatcherLimitHolds() throws Exception {
        try (TestNode node = TestNode.start(STREAMING, Map.of("GW_MAX_WATCHERS_PER_SESSION", "1"))) {
            SessionInfo session = node.sshSession();
            try (WsClient owner = node.attach(session)) {
                owner.awaitInstruction("sync");
                String token = share(node, TestNode.ADMIN, session, "{}").get("share_token").asText();
                try (WsClient first = attach(node, session, shareTicket(node, token, "one").get("ticket").asText());
                        WsClient second = attach(node, session, shareTicket(node, token, "two").get("ticket")
                                .asText())) {
                    first.awaitInstruction("sync");
                    second.awaitClose();
                    assertEquals(String.valueOf(GuacamoleStatus.CLIENT_TOO_MANY.code()), second.closeReason());
                    assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN,
                            null).statusCode());
                    first.awaitClose();
                    assertEquals(String.valueOf(GuacamoleStatus.SESSION_CLOSED.code()), first.closeReason());
                }
            }
            node.assertNothingLeaks();
        }
    }

    @Test
    void aLinkWorksThroughAnyNodeAndIsRevokedThroughAnyNode() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of("GW_MEMORY_BUDGET_MB", n == 2 ? "5000" : "100"))) {
            TestNode owning = cluster.node(2);
            TestNode other = cluster.node(1);
            SessionInfo session = owning.sshSession();
            assertEquals(owning.node.config().nodeId(), session.nodeId());
            try (WsClient owner = owning.attach(session)) {
                owner.awaitInstruction("sync");
                JsonNode share = share(other, TestNode.ADMIN, session, "{}");
                String ticket = shareTicket(other, share.get("share_token").asText(), "remote").get("ticket")
                        .asText();
                try (WsClient watcher = attach(other, session, ticket)) {
                    watcher.awaitInstruction("sync");
                    SyntheticConnection watching = owning.guacd.lastSession();
                    assertEquals(owning.guacd.sessions().get(0).connectionId(), watching.joined());
                    watcher.send("3.key,5.65507,1.1;");
                    TestNode.await(() -> watchers(other, session).size() == 1, "the watcher is not listed");
                    assertEquals(204, other.request("DELETE", "/api/sessions/" + session.sessionId() + "/shares/"
                            + share.get("share_id").asText(), TestNode.ADMIN, null).statusCode());
                    watcher.awaitClose();
                    assertEquals(String.valueOf(GuacamoleStatus.CLIENT_FORBIDDEN.code()), watcher.closeReason());
                    assertFalse(opcodes(watching).contains("key"), "a relayed read-only watcher typed");
                }
            }
            for (TestNode node : cluster.nodes) {
                node.assertNothingLeaks();
            }
        }
    }

    static WsClient attach(TestNode node, SessionInfo session, String ticket) throws Exception {
        return node.connectRaw(session.wsUrl() + "?ticket=" + ticket, null);
    }

    static JsonNode share(TestNode node, String token, SessionInfo session, String body) throws Exception {
        HttpResponse<String> response = node.request("POST", "/api/sessions/" + session.sessionId() + "/shares",
                token, body);
        assertEquals(201, response.statusCode(), response::body);
        return TestNode.json(response);
    }

    static JsonNode shareTicket(TestNode node, String token, String name) throws Exception {
        String body = "{\"share\":\"" + token + "\"" + (name == null ? "" : ",\"name\":\"" + name + "\"") + "}";
        HttpResponse<String> response = node.request("POST", "/api/share-ticket", null, body);
        assertEquals(200, response.statusCode(), response::body);
        return TestNode.json(response);
    }

    private static JsonNode list(TestNode node, String token, SessionInfo session) throws Exception {
        HttpResponse<String> response = node.request("GET", "/api/sessions/" + session.sessionId() + "/shares",
                token, null);
        assertEquals(200, response.statusCode(), response::body);
        return TestNode.json(response);
    }

    private static List<Watcher> watchers(TestNode node, SessionInfo session) {
        try {
            return node.session(session.sessionId()).watchers();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String metrics(TestNode node) {
        try {
            return node.request("GET", "/metrics", null, null).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> opcodes(SyntheticConnection connection) {
        return connection.received().stream().map(Instruction::opcode).toList();
    }

    private static void assertError(HttpResponse<String> response, int status, String part) throws Exception {
        assertEquals(status, response.statusCode(), response::body);
        String error = TestNode.json(response).get("error").asText();
        assertTrue(error.contains(part), () -> "error '" + error + "' does not say '" + part + "'");
    }
}
