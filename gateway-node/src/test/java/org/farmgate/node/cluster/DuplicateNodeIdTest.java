package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.farmgate.node.TestCluster;
import org.farmgate.node.TestNode;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.Test;

/**
 * A second node that starts with an id a live node already has (two nodes on one host both defaulting to the host
 * name) is refused at start with a message naming the node that has it, and leaves the first one alone.
 */
@WaitBound
class DuplicateNodeIdTest {

    @Test
    void aDuplicateNodeIdIsRefusedWithAMessageNamingTheOtherNode() throws Exception {
        try (TestCluster cluster = TestCluster.start(1, n -> Map.of())) {
            TestNode first = cluster.node(1);
            Map<String, String> twin = new HashMap<>();
            twin.put("GW_NODE_ID", "node-1");
            twin.put("GW_CLUSTER_HOST", "127.0.0.1");
            twin.put("GW_CLUSTER_NAME", first.node.config().cluster().name());
            twin.put("GW_CLUSTER_MEMBERS", String.join(",", first.node.config().cluster().members()));
            twin.put("GW_HEARTBEAT_MS", "300");
            twin.put("GW_CLUSTER_MEMBER_TIMEOUT_SECS", "3");
            twin.put("GW_CLUSTER_SECRETS_DIR", TestCluster.keys(1).toString());
            long start = System.nanoTime();
            Exception refused = assertThrows(Exception.class,
                    () -> TestNode.start(new SyntheticGuacdOptions(), twin).close());
            long seconds = (System.nanoTime() - start) / 1_000_000_000L;
            String message = String.valueOf(refused.getMessage()) + " " + refused.getCause();
            assertTrue(message.contains("'node-1' is in use"), message);
            assertTrue(message.contains("127.0.0.1:" + first.port()), "names where the other node is: " + message);
            assertTrue(seconds < 30, "refused after " + seconds + " s");

            assertEquals(1, TestCluster.clusterSize(first), "the first node is untouched");
            assertEquals("node-1", first.sshSession().nodeId());
        }
    }
}
