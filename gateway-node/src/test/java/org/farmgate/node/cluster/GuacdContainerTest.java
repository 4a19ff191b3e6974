package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.farmgate.model.NodeLoad;
import org.farmgate.node.TestNode;
import org.junit.jupiter.api.Test;

/**
 * In a pod, guacd runs in a sidecar with its own memory limit, and the node's cgroup (1 GiB in the manifest) says
 * nothing of it: a budget from the node's own container left room for a handful of sessions on an 8 GiB guacd.
 * With GW_GUACD_MEMORY_LIMIT_MB (the sidecar's limit, from the downward API) the budget is guacd's.
 */
class GuacdContainerTest {

    @Test
    void theMemoryIsTheGuacdContainersLimitLessWhatGuacdTakes() {
        HostProbe nodeContainer = HostProbe.fixed(new HostProbe.Reading(1024, 600, 1000, 3, 4, 0.5, "boot-id"));
        HostProbe.Reading reading = HostProbe.inGuacdContainer(nodeContainer, 8192).read();
        assertEquals(8192, reading.totalMb());
        assertEquals(7192, reading.availableMb());
        assertEquals(1000, reading.guacdPssMb());
        assertNull(reading.hostId(), "the container's memory is shared with no other node");

        HostProbe unreadable = HostProbe.fixed(new HostProbe.Reading(1024, 600, -1, 3, 4, 0.5));
        assertEquals(8192, HostProbe.inGuacdContainer(unreadable, 8192).read().availableMb());
    }

    @Test
    void aNodeWithAGuacdSidecarBudgetsTheSidecarsMemory() throws Exception {
        try (TestNode node = TestNode.start(new org.farmgate.testkit.guacd.SyntheticGuacdOptions(),
                Map.of("GW_GUACD_MEMORY_LIMIT_MB", "8192", "GW_MEMORY_MARGIN_MB", "512",
                        "GW_MEMORY_BUDGET_MB", "-1"))) {
            NodeLoad published = node.node.agent().lastPublished();
            assertEquals(8192 - 512, published.limits().budgetMb());
            assertEquals(8192, published.measurements().hostTotalMb());
            assertEquals(8192 - 512, published.freeMb());
        }
    }
}
