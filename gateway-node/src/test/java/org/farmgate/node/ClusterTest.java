package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three members in one JVM with budgets of 1000, 3000 and 2000 MB and SSH sessions at a flat 10 MB, so where a
 * session lands is easy to predict.
 */
class ClusterTest {

    private static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        int[] budgets = {1000, 3000, 2000};
        cluster = TestCluster.start(3, n -> Map.of("GW_MEMORY_BUDGET_MB", String.valueOf(budgets[n - 1]),
                "GW_COST_SSH_MB", "10", "GW_MAX_SESSIONS_PER_USER", "5"));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @AfterEach
    void nothingLeft() throws Exception {
        for (TestNode node : cluster.nodes) {
            for (JsonNode session : TestNode.json(node.request("GET", "/api/sessions?all=true", TestNode.ADMIN,
                    null))) {
                node.request("DELETE", "/api/sessions/" + session.get("session_id").asText(), TestNode.ADMIN, null);
            }
        }
        for (TestNode node : cluster.nodes) {
            node.assertNothingLeaks();
        }
    }

    @Test
    void everyNodeSeesTheClusterAndItsCapacity() throws Exception {
        for (TestNode node : cluster.nodes) {
            JsonNode view = TestNode.json(node.request("GET", "/api/cluster", TestNode.ADMIN, null));
            assertEquals(3, view.get("nodes").size());
            assertEquals(600, view.get("totals").get("fits").get("ssh").asInt(), view.toString());
            assertEquals("up", view.get("nodes").get(0).get("state").asText());
            assertEquals(300, view.get("nodes").get(1).get("fits").get("ssh").asInt());
            assertTrue(view.get("nodes").get(0).get("guacd_healthy").asBoolean());
        }
    }

    @Test
    void sessionsGoWhereTheMostMemoryIsFree() throws Exception {
        for (int i = 0; i < 3; i++) {
            SessionInfo session = cluster.node(1).sshSession();
            assertEquals("node-2", session.nodeId());
            assertEquals(10, session.estimatedMemoryMb());
        }
        JsonNode node2 = TestNode.json(cluster.node(3).request("GET", "/api/cluster", TestNode.ADMIN, null))
                .get("nodes").get(1);
        assertEquals(30, node2.get("memory").get("reserved_mb").asInt());
        assertEquals(3, node2.get("sessions").get("ssh").asInt());
    }

    @Test
    void theCreateResponseCarriesTheRoutingHint() throws Exception {
        HttpResponse<String> created = cluster.node(3).request("POST", "/api/sessions", TestNode.ADMIN,
                "{\"hostname\":\"127.0.0.1\"}");
        assertEquals(201, created.statusCode());
        String id = TestNode.json(created).get("session_id").asText();
        assertEquals("farmgate_node=node-2; Path=/ws/" + id + "; Max-Age=60; HttpOnly; SameSite=Lax",
                created.headers().firstValue("Set-Cookie").orElse(""));
    }

    @Test
    void tokensTicketsListsAndDeletesWorkOnEveryNode() throws Exception {
        String token = cluster.node(1).createToken("anywhere", "poweruser");
        SessionInfo session = cluster.node(3).createSession(token, "{\"hostname\":\"127.0.0.1\"}");
        assertEquals("node-2", session.nodeId());
        JsonNode listed = TestNode.json(cluster.node(1).request("GET", "/api/sessions", token, null));
        assertEquals(1, listed.size());
        assertEquals(session.sessionId(), listed.get(0).get("session_id").asText());

        String ticket = cluster.node(2).ticket(token);
        try (WsClient ws = cluster.node(3).connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
            ws.awaitInstruction("sync");
            assertEquals(204, cluster.node(1).request("DELETE", "/api/sessions/" + session.sessionId(), token, null)
                    .statusCode());
            assertEquals("523", ws.awaitInstruction("error").arg(1), "the owner really ended it");
            ws.awaitClose();
            assertEquals("523", ws.closeReason());
        }
        assertEquals(404, cluster.node(3).request("GET", "/api/sessions/" + session.sessionId(), token, null)
                .statusCode());
        assertEquals(204, cluster.node(2).request("DELETE", "/api/tokens/anywhere", TestNode.ADMIN, null)
                .statusCode());
        TestNode.await(() -> {
            try {
                return cluster.node(3).request("GET", "/api/sessions", token, null).statusCode() == 401;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "a revoked token still works on another node");
    }

    @Test
    void aWebSocketReachingANonOwnerIsRelayedToTheOwner() throws Exception {
        SessionInfo session = cluster.node(1).sshSession();
        assertEquals("node-2", session.nodeId());
        try (WsClient ws = cluster.node(1).attach(session, "GUAC_TIMEZONE=Asia/Tokyo")) {
            assertEquals(Instruction.of("", session.sessionId()).encode(), ws.nextMessage());
            Instruction sync = ws.awaitInstruction("sync");
            ws.send("0.,4.ping,13.1700000000000;3.key,2.65,1.1;");
            assertEquals(Instruction.of("", "ping", "1700000000000"), ws.awaitInstruction(""));
            SyntheticConnection guacd = cluster.node(2).guacd.lastSession();
            TestNode.await(() -> guacd.received().contains(Instruction.of("key", "65", "1")),
                    "the owner's guacd did not get the key");
            assertEquals("Asia/Tokyo", guacd.connectValues().get("timezone"), "hints travel with the relay");
            assertFalse(guacd.received().stream().anyMatch(Instruction::isInternal));
            assertEquals(0, cluster.node(1).guacd.sessions().size(), "the relaying node opened no guacd connection");
            assertEquals(SessionStatus.ACTIVE, cluster.node(3).session(session.sessionId()).status());
            assertEquals(java.util.List.of(), ws.violations());
            assertTrue(sync.args().size() >= 1);
        }
        cluster.node(2).awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
    }

    @Test
    void guacdErrorsKeepTheirStatusThroughTheRelay() throws Exception {
        SessionInfo session = cluster.node(3).createSession(TestNode.ADMIN,
                "{\"hostname\":\"127.0.0.1\",\"port\":9,\"password\":\"x\"}");
        assertEquals("node-2", session.nodeId());
        try (WsClient ws = cluster.node(3).attach(session)) {
            assertEquals("515", ws.awaitInstruction("error").arg(1));
            ws.awaitClose();
            assertEquals("515", ws.closeReason());
            assertEquals((short) 1011, ws.closeCode());
        }
        cluster.node(1).awaitStatus(session.sessionId(), SessionStatus.ERROR);
    }

    @Test
    void theLimitPerUserHoldsAcrossNodes() throws Exception {
        String token = cluster.node(1).createToken("limited", "poweruser");
        java.util.List<java.util.concurrent.CompletableFuture<Integer>> calls = new java.util.ArrayList<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(30);
        for (int i = 0; i < 60; i++) {
            TestNode node = cluster.nodes.get(i % 3);
            calls.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return node.request("POST", "/api/sessions", token, "{\"hostname\":\"127.0.0.1\"}").statusCode();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, pool));
        }
        java.util.List<Integer> statuses = calls.stream().map(java.util.concurrent.CompletableFuture::join).toList();
        pool.shutdown();
        assertEquals(5, statuses.stream().filter(status -> status == 201).count(), statuses.toString());
        assertEquals(55, statuses.stream().filter(status -> status == 429).count(), statuses.toString());
        JsonNode mine = TestNode.json(cluster.node(2).request("GET", "/api/sessions", token, null));
        cluster.node(2).request("DELETE", "/api/sessions/" + mine.get(0).get("session_id").asText(), token, null);
        assertEquals(201, cluster.node(3).request("POST", "/api/sessions", token, "{\"hostname\":\"127.0.0.1\"}")
                .statusCode(), "a deleted session gives its place back");
    }

    @Test
    void aDrainingNodeTakesNothingNew() throws Exception {
        HttpResponse<String> drained = cluster.node(1).request("POST", "/api/cluster/nodes/node-2/drain",
                TestNode.ADMIN, null);
        assertEquals(200, drained.statusCode(), drained.body());
        try {
            TestNode.await(() -> {
                try {
                    return TestNode.json(cluster.node(3).request("GET", "/api/cluster", TestNode.ADMIN, null))
                            .get("nodes").get(1).get("state").asText().equals("draining");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "node-2 does not show as draining");
            assertEquals("node-3", cluster.node(1).sshSession().nodeId());
        } finally {
            assertEquals(200, cluster.node(3).request("POST", "/api/cluster/nodes/node-2/undrain", TestNode.ADMIN,
                    null).statusCode());
        }
        // Routers reuse their registry snapshot for a heartbeat: an undrained node is back within one.
        TestNode.await(() -> {
            try {
                SessionInfo next = cluster.node(1).sshSession();
                cluster.node(1).request("DELETE", "/api/sessions/" + next.sessionId(), TestNode.ADMIN, null);
                return next.nodeId().equals("node-2");
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "node-2 takes no sessions after undrain");
        assertEquals(404, cluster.node(1).request("POST", "/api/cluster/nodes/nope/drain", TestNode.ADMIN, null)
                .statusCode());
        String operator = cluster.node(1).createToken("op-drain", "operator");
        assertEquals(403, cluster.node(1).request("POST", "/api/cluster/nodes/node-2/drain", operator, null)
                .statusCode());
    }
}
