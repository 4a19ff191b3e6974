package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeLoad;
import org.farmgate.node.TestCluster;
import org.farmgate.node.TestNode;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.Test;

/**
 * Two nodes on one host (the same boot id) and one on another: the two split the host's memory, so the cluster
 * counts each host once (it showed 42 GB of a 24 GB host when every node counted all of it).
 */
@WaitBound
class SharedHostTest {

    @Test
    void nodesOnOneHostShareItsMemory() throws Exception {
        try (TestCluster cluster = TestCluster.start(3, n -> Map.of(TestNode.HOST_ID, n < 3 ? "host-a" : "host-b"))) {
            Awaitility.await("the nodes of host-a split it").atMost(Duration.ofSeconds(10)).until(() ->
                    measured(cluster.node(1)).sharedBy() == 2 && measured(cluster.node(2)).sharedBy() == 2);
            for (int n = 1; n <= 2; n++) {
                HostMeasurements host = measured(cluster.node(n));
                assertEquals(49_152 / 2, host.hostAvailableMb());
                assertEquals(65_536 / 2, host.hostTotalMb());
            }
            HostMeasurements alone = measured(cluster.node(3));
            assertEquals(1, alone.sharedBy());
            assertEquals(49_152, alone.hostAvailableMb());
            long clusterAvailable = cluster.nodes.stream().mapToLong(node -> measured(node).hostAvailableMb()).sum();
            assertEquals(2 * 49_152, clusterAvailable, "two hosts, each counted once");
        }
    }

    private static HostMeasurements measured(TestNode node) {
        NodeLoad published = node.node.agent().lastPublished();
        return published.measurements();
    }
}
