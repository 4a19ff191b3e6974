package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.Json;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.ClusterKeys;
import org.farmgate.testkit.process.NodeProcess;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.Test;

/**
 * Three nodes as three separate processes of the runnable jar, as the README starts them: they form a cluster,
 * place sessions where memory is free, and survive a SIGKILL of one of them.
 */
@WaitBound
class ThreeProcessClusterIT {

    private static final String TOKEN = "it-admin-token-0123456789abcdefghij";

    @Test
    void threeProcessesFormAClusterAndSurviveAKill() throws Exception {
        Vertx vertx = Vertx.vertx();
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, new SyntheticGuacdOptions()).await(10, TimeUnit.SECONDS);
        List<Integer> clusterPorts = List.of(TestNode.freePort(), TestNode.freePort(), TestNode.freePort());
        String members = String.join(",", clusterPorts.stream().map(p -> "127.0.0.1:" + p).toList());
        List<NodeProcess> nodes = new ArrayList<>();
        Path keys = ClusterKeys.ensure(Path.of("target/cluster-keys-it").toAbsolutePath(),
                List.of("proc-1", "proc-2", "proc-3"));
        try {
            int[] budgets = {1000, 2000, 1500};
            for (int i = 0; i < 3; i++) {
                Map<String, String> env = new HashMap<>();
                env.put("GW_NODE_ID", "proc-" + (i + 1));
                env.put("GW_ADMIN_TOKEN", TOKEN);
                env.put("GW_GUACD_PORT", String.valueOf(guacd.port()));
                env.put("GW_CLUSTER_PORT", String.valueOf(clusterPorts.get(i)));
                env.put("GW_CLUSTER_MEMBERS", members);
                env.put("GW_CLUSTER_HOST", "127.0.0.1");
                env.put("GW_EVENTBUS_PORT", String.valueOf(TestNode.freePort()));
                env.put("GW_RELAY_PORT", String.valueOf(TestNode.freePort()));
                env.put("GW_CLUSTER_SECRETS_DIR", keys.toString());
                env.put("GW_CLUSTER_NAME", "farmgate-it-" + clusterPorts.get(0));
                env.put("GW_MEMORY_BUDGET_MB", String.valueOf(budgets[i]));
                env.put("GW_COST_SSH_MB", "10");
                env.put("GW_HEARTBEAT_MS", "500");
                env.put("GW_CLUSTER_MEMBER_TIMEOUT_SECS", "4");
                env.put("GW_LOG_LEVEL", "WARN");
                Path log = Files.createTempFile("farmgate-it-node-" + (i + 1), ".log");
                nodes.add(NodeProcess.start(NodeProcess.Launch.jar(Path.of("target/farmgate-node.jar")), env, List.of("-Xmx256m"), log));
            }
            GatewayApi first = new GatewayApi(nodes.get(0).baseUrl(), TOKEN);
            TestNode.await(() -> nodeCount(first) == 3, "the three processes did not form one cluster");

            String owner = Json.mapper().readTree(createSession(first)).get("node_id").asText();
            assertEquals("proc-2", owner, "the session goes where the most memory is free");

            nodes.get(1).kill();
            GatewayApi third = new GatewayApi(nodes.get(2).baseUrl(), TOKEN);
            TestNode.await(() -> nodeCount(third) == 2, "the killed process did not leave the cluster");
            for (int i = 0; i < 3; i++) {
                assertNotEquals("proc-2", Json.mapper().readTree(createSession(third)).get("node_id").asText());
            }
            JsonNode sessions = get(third, "/api/sessions?all=true");
            assertTrue(sessions.findValuesAsText("status").contains("lost"), sessions.toString());
        } finally {
            for (NodeProcess node : nodes) {
                node.close();
            }
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    private static String createSession(GatewayApi api) throws Exception {
        return api.post("/api/sessions", "{\"hostname\":\"127.0.0.1\"}").toString();
    }

    private static int nodeCount(GatewayApi api) {
        try {
            return get(api, "/api/cluster").get("nodes").size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static JsonNode get(GatewayApi api, String path) throws Exception {
        return api.get(path);
    }
}
