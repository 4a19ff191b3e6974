package org.farmgate.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.ClusterKeys;

/** Several gateway nodes in one JVM, each a Hazelcast member joined by TCP-IP on loopback, each with its own guacd. */
public final class TestCluster implements AutoCloseable {

    public final List<TestNode> nodes = new ArrayList<>();
    private Map<String, String> common = Map.of();

    /** Starts {@code count} nodes named node-1..node-N; {@code settings} adds each node's own configuration. */
    public static TestCluster start(int count, IntFunction<Map<String, String>> settings) throws Exception {
        return start(count, new SyntheticGuacdOptions(), settings);
    }

    /** As {@link #start(int, IntFunction)}, every node's guacd behaving as {@code guacd} says. */
    public static TestCluster start(int count, SyntheticGuacdOptions guacd, IntFunction<Map<String, String>> settings)
            throws Exception {
        TestCluster cluster = new TestCluster();
        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ports.add(TestNode.freePort());
        }
        String members = String.join(",", ports.stream().map(port -> "127.0.0.1:" + port).toList());
        try {
            for (int i = 0; i < count; i++) {
                Map<String, String> values = new HashMap<>();
                values.put("GW_NODE_ID", "node-" + (i + 1));
                values.put("GW_CLUSTER_PORT", String.valueOf(ports.get(i)));
                values.put("GW_CLUSTER_MEMBERS", members);
                values.put("GW_CLUSTER_HOST", "127.0.0.1");
                values.put("GW_CLUSTER_NAME", "farmgate-test-" + ports.get(0));
                values.put("GW_HEARTBEAT_MS", "300");
                values.put("GW_CLUSTER_MEMBER_TIMEOUT_SECS", "3");
                values.put("GW_CLUSTER_SECRETS_DIR", keys(count).toString());
                values.putAll(settings.apply(i + 1));
                cluster.common = values;
                cluster.nodes.add(TestNode.start(guacd, values));
            }
            for (TestNode node : cluster.nodes) {
                TestNode.await(() -> clusterSize(node) == count, node.node.config().nodeId() + " does not see "
                        + count + " nodes");
            }
        } catch (Exception | AssertionError e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** Keys for node-1..node-N, made by bin/farmgate-keys once for every test of this JVM. */
    public static Path keys(int count) throws Exception {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= Math.max(count, 5); i++) {
            names.add("node-" + i);
        }
        return ClusterKeys.ensure(KEYS, names);
    }

    static final Path KEYS = Path.of("target/cluster-keys").toAbsolutePath();

    public TestNode node(int number) {
        return nodes.get(number - 1);
    }

    public TestNode byId(String nodeId) {
        return nodes.stream().filter(node -> node.node.config().nodeId().equals(nodeId)).findFirst().orElseThrow();
    }

    public static int clusterSize(TestNode node) {
        try {
            return TestNode.json(node.request("GET", "/api/cluster", TestNode.ADMIN, null)).get("nodes").size();
        } catch (Exception e) {
            return -1;
        }
    }

    /** One more node, node-N, joining the running ones with the last node's settings but its own ports. */
    public TestNode add() throws Exception {
        Map<String, String> values = new HashMap<>(common);
        values.put("GW_NODE_ID", "node-" + (nodes.size() + 1));
        values.put("GW_CLUSTER_PORT", String.valueOf(TestNode.freePort()));
        TestNode node = TestNode.start(new SyntheticGuacdOptions(), values);
        nodes.add(node);
        TestNode.await(() -> clusterSize(node) == nodes.size(), "node-" + nodes.size() + " did not join");
        return node;
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (int i = nodes.size() - 1; i >= 0; i--) {
            try {
                nodes.get(i).close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
