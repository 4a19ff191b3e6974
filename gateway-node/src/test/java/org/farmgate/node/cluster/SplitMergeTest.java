package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.node.TestCluster;
import org.farmgate.node.TestNode;
import org.farmgate.protocol.Instruction;
import org.farmgate.router.SessionQuota;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.Test;

/**
 * Two clusters of one node each that find each other (node 2 was started without node 1 in its member list, node 1
 * knows node 2): Hazelcast merges them, and the merging member comes back under a new member id. Both nodes hold a
 * live session while this happens; after the merge, neither session is lost, each node is listed once under its
 * current member id, and the user's quota holds exactly the two sessions.
 */
@WaitBound
class SplitMergeTest {

    @Test
    void aMergeLosesNoLiveSessionAndTheRegistryFollowsTheNewMemberId() throws Exception {
        int port1 = TestNode.freePort();
        int port2 = TestNode.freePort();
        Map<String, String> common = new HashMap<>();
        common.put("GW_CLUSTER_HOST", "127.0.0.1");
        common.put("GW_CLUSTER_NAME", "farmgate-merge-" + port1);
        common.put("GW_HEARTBEAT_MS", "300");
        common.put("GW_CLUSTER_MEMBER_TIMEOUT_SECS", "3");
        common.put("GW_CLUSTER_SECRETS_DIR", TestCluster.keys(2).toString());
        Map<String, String> two = new HashMap<>(common);
        two.putAll(Map.of("GW_NODE_ID", "node-2", "GW_CLUSTER_PORT", String.valueOf(port2),
                "GW_CLUSTER_MEMBERS", "127.0.0.1:" + port2));
        Map<String, String> one = new HashMap<>(common);
        one.putAll(Map.of("GW_NODE_ID", "node-1", "GW_CLUSTER_PORT", String.valueOf(port1),
                "GW_CLUSTER_MEMBERS", "127.0.0.1:" + port1));
        // Node 1 starts first and finds nobody at node 2's address; node 2 starts without node 1 in its list, as a
        // node restarted with a short member list does. Node 1's master keeps looking for other clusters at the
        // addresses it knows, and finds node 2's.
        try (TestNode nodeOne = TestNode.start(quiet(), withMembers(one, port1, port2));
                TestNode nodeTwo = TestNode.start(quiet(), two)) {
            SessionInfo onOne = nodeOne.sshSession();
            SessionInfo onTwo = nodeTwo.sshSession();
            try (WsClient first = nodeOne.attach(onOne); WsClient second = nodeTwo.attach(onTwo)) {
                first.awaitInstruction("sync");
                second.awaitInstruction("sync");
                if (TestCluster.clusterSize(nodeOne) == 2) {
                    throw new IllegalStateException("the nodes joined at once; this test needs them apart first");
                }

                Awaitility.await("the two clusters merge").atMost(Duration.ofSeconds(90))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> TestCluster.clusterSize(nodeOne) == 2 && TestCluster.clusterSize(nodeTwo) == 2);
                // Long enough for many heartbeats and sweeps under the old and the new member ids.
                TimeUnit.SECONDS.sleep(4);

                for (TestNode node : List.of(nodeOne, nodeTwo)) {
                    assertEquals(SessionStatus.ACTIVE, node.session(onOne.sessionId()).status());
                    assertEquals(SessionStatus.ACTIVE, node.session(onTwo.sessionId()).status());
                    assertEquals(2, TestCluster.clusterSize(node));
                }
                for (TestNode node : List.of(nodeOne, nodeTwo)) {
                    String member = node.node.runtime().membership().localMemberId();
                    assertEquals(member, node.node.agent().lastPublished().address().memberId(),
                            node.node.config().nodeId() + " is listed under its current member id");
                }
                first.send("0.,4.ping,1.1;");
                assertEquals(Instruction.of("", "ping", "1"), first.awaitInstruction(""));
                second.send("0.,4.ping,1.2;");
                assertEquals(Instruction.of("", "ping", "2"), second.awaitInstruction(""));
                assertFalse(first.isClosed() || second.isClosed());

                SessionQuota quota = new SessionQuota(nodeOne.node.runtime().userSessions());
                Awaitility.await("the quota holds both live sessions").atMost(Duration.ofSeconds(10))
                        .until(() -> Set.of(onOne.sessionId(), onTwo.sessionId()).equals(quota.places()
                                .toCompletableFuture().get().get(onOne.ownerId())));
            }
        }
    }

    /** A guacd that keeps a session whose client answers no sync: the test's clients only listen. */
    private static SyntheticGuacdOptions quiet() {
        return new SyntheticGuacdOptions().idleTimeout(Duration.ZERO);
    }

    private static Map<String, String> withMembers(Map<String, String> settings, int... ports) {
        Map<String, String> out = new HashMap<>(settings);
        StringBuilder members = new StringBuilder();
        for (int port : ports) {
            members.append(members.length() == 0 ? "" : ",").append("127.0.0.1:").append(port);
        }
        out.put("GW_CLUSTER_MEMBERS", members.toString());
        return out;
    }
}
