package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.db.TestPostgres;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cluster on a real PostgreSQL: what its nodes knew outlives every one of them, and the sessions of a node that
 * dies are closed in history once each.
 */
@WaitBound
class DurableClusterTest {

    private String url;
    private String user;

    @BeforeEach
    void database() {
        assumeTrue(TestPostgres.shared().isPresent(), () -> "no PostgreSQL: " + TestPostgres.whyUnavailable());
        url = TestPostgres.shared().get().newDatabase();
        user = TestPostgres.shared().get().user();
    }

    private Map<String, String> settings() {
        return Map.of("GW_DB_URL", url.substring("jdbc:".length()), "GW_DB_USER", user);
    }

    @Test
    void everyNodeStoppedAndStartedAgainKeepsTokensRevocationsMappingsAndHistory() throws Exception {
        String keeper;
        String gone;
        String kept;
        String deleted;
        try (TestCluster cluster = TestCluster.start(3, i -> settings())) {
            keeper = cluster.node(1).createToken("keeper", "operator");
            gone = cluster.node(2).createToken("gone", "poweruser");
            assertEquals(200, cluster.node(3).request("GET", "/api/sessions", gone, null).statusCode());
            assertEquals(204, cluster.node(3).request("DELETE", "/api/tokens/gone", TestNode.ADMIN, null)
                    .statusCode());
            assertEquals(201, cluster.node(2).request("POST", "/api/admin/group-mappings", TestNode.ADMIN,
                    "{\"group\":\"night-shift\",\"role\":\"operator\"}").statusCode());
            kept = cluster.node(1).sshSession().sessionId();
            deleted = cluster.node(2).sshSession().sessionId();
            assertEquals(204, cluster.node(3).request("DELETE", "/api/sessions/" + deleted, TestNode.ADMIN, null)
                    .statusCode());
        }

        try (TestCluster again = TestCluster.start(3, i -> settings())) {
            for (TestNode node : again.nodes) {
                assertEquals(200, node.request("GET", "/api/sessions", keeper, null).statusCode(),
                        "a token made before every node stopped still works");
                assertEquals(401, node.request("GET", "/api/sessions", gone, null).statusCode(),
                        "a token revoked before every node stopped stays refused");
            }
            List<String> names = new ArrayList<>();
            TestNode.json(again.node(2).request("GET", "/api/tokens", TestNode.ADMIN, null))
                    .forEach(token -> names.add(token.get("name").asText()));
            assertEquals(List.of("keeper"), names);
            assertEquals(409, again.node(3).request("POST", "/api/tokens", TestNode.ADMIN,
                    "{\"name\":\"keeper\",\"role\":\"viewer\"}").statusCode(), "its name is still taken");

            JsonNode mappings = TestNode.json(again.node(3).request("GET", "/api/admin/group-mappings",
                    TestNode.ADMIN, null));
            assertEquals("night-shift=operator", mappings.get(0).get("oidc_group").asText() + "="
                    + mappings.get(0).get("role").asText(), mappings::toString);
            JsonNode history = TestNode.json(again.node(1).request("GET", "/api/reports/sessions", TestNode.ADMIN,
                    null));
            Map<String, JsonNode> rows = new java.util.HashMap<>();
            history.get("sessions").forEach(row -> rows.put(row.get("session_id").asText(), row));
            assertEquals("drained", rows.get(kept).get("end_reason").asText(), rows.get(kept)::toString);
            assertEquals("ended", rows.get(deleted).get("end_reason").asText());
            assertEquals("admin", rows.get(deleted).get("ended_by").asText());
            JsonNode revocation = TestNode.json(again.node(2).request("GET", "/api/audit?action=token.revoke",
                    TestNode.ADMIN, null)).get("events").get(0);
            assertEquals("gone", revocation.get("target").asText());
            assertTrue(TestNode.json(again.node(3).request("GET", "/api/audit/verify", TestNode.ADMIN, null))
                    .get("intact").asBoolean());
        }
    }

    @Test
    void aNodeKilledWithFiveLiveSessionsLeavesFiveRowsLostOnceEach() throws Exception {
        try (TestCluster cluster = TestCluster.start(3, i -> settings())) {
            // the others drained, every new session goes to node-2
            for (String other : List.of("node-1", "node-3")) {
                assertEquals(200, cluster.node(1).request("POST", "/api/cluster/nodes/" + other + "/drain",
                        TestNode.ADMIN, null).statusCode());
            }
            for (int i = 0; i < 5; i++) {
                SessionInfo session = cluster.node(1).sshSession();
                assertEquals("node-2", session.nodeId());
            }
            TestNode.await(() -> count("SELECT COUNT(*) FROM session_history WHERE node_id = 'node-2' AND "
                    + "ended_at IS NULL") == 5, "the five rows are not written");

            cluster.node(2).crash();

            TestNode.await(() -> count("SELECT COUNT(*) FROM session_history WHERE node_id = 'node-2' AND "
                    + "status = 'lost'") == 5, "the dead node's rows are not closed as lost");
            assertEquals(5, count("SELECT COUNT(*) FROM session_history WHERE node_id = 'node-2'"));
            assertEquals(5, count("SELECT COUNT(DISTINCT session_id) FROM session_history WHERE status = 'lost'"));
            assertEquals(0, count("SELECT COUNT(*) FROM session_history WHERE node_id = 'node-2' AND "
                    + "ended_at IS NULL"));
        }
    }

    private long count(String sql) {
        try (Connection connection = DriverManager.getConnection(url, user, ""); Statement statement = connection
                .createStatement(); ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
