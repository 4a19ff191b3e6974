package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.Test;

/** A node that dies (no drain, no goodbye) while it holds sessions, some of them relayed through another node. */
@WaitBound
class NodeLossTest {

    @Test
    void aDeadNodesSessionsTurnLostAndTheSurvivorsCarryOn() throws Exception {
        try (TestCluster cluster = TestCluster.start(3, n -> Map.of("GW_MEMORY_BUDGET_MB", "1000",
                "GW_COST_SSH_MB", "10"))) {
            // equal budgets, the creates spread over the nodes as a balancer would: each node takes those it received
            List<SessionInfo> sessions = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                sessions.add(cluster.node(1 + i % 3).sshSession());
            }
            SessionInfo onTwo = sessions.stream().filter(s -> s.nodeId().equals("node-2")).findFirst().orElseThrow();
            SessionInfo onOne = sessions.stream().filter(s -> s.nodeId().equals("node-1")).findFirst().orElseThrow();
            SessionInfo onThree = sessions.stream().filter(s -> s.nodeId().equals("node-3")).findFirst()
                    .orElseThrow();
            long lostExpected = sessions.stream().filter(s -> s.nodeId().equals("node-2")).count();

            try (WsClient relayed = cluster.node(3).attach(onTwo); WsClient direct = cluster.node(1).attach(onOne)) {
                relayed.awaitInstruction("sync");
                direct.awaitInstruction("sync");
                long start = System.nanoTime();

                cluster.node(2).crash();

                assertEquals("520", relayed.awaitInstruction("error").arg(1), "the relayed client hears why");
                relayed.awaitClose();
                assertEquals("520", relayed.closeReason());
                TestNode.await(() -> {
                    try {
                        return cluster.node(1).session(onTwo.sessionId()).status() == SessionStatus.LOST;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "the dead node's sessions did not turn lost");
                long seconds = (System.nanoTime() - start) / 1_000_000_000L;
                assertTrue(seconds <= 10, "lost after " + seconds + " s");
                // The coordinator marks them one after the other: the first lost is not yet all of them.
                TestNode.await(() -> lostSeenBy(cluster.node(3)) == lostExpected, "not every session of the dead "
                        + "node turned lost");
                assertEquals(2, TestCluster.clusterSize(cluster.node(1)), "the dead node left the registry");

                // The survivors' sessions are untouched.
                direct.send("0.,4.ping,1.7;");
                assertEquals(Instruction.of("", "ping", "7"), direct.awaitInstruction(""));
                assertFalse(direct.isClosed());
                assertEquals(SessionStatus.PENDING, cluster.node(3).session(onThree.sessionId()).status());

                // New sessions go to the survivors; deleting a lost one only drops its record.
                for (int i = 0; i < 4; i++) {
                    assertNotEquals("node-2", cluster.node(3).sshSession().nodeId());
                }
                assertEquals(204, cluster.node(1).request("DELETE", "/api/sessions/" + onTwo.sessionId(),
                        TestNode.ADMIN, null).statusCode());
            }
        }
    }

    private static long lostSeenBy(TestNode node) {
        try {
            return TestNode.json(node.request("GET", "/api/sessions?all=true", TestNode.ADMIN, null))
                    .findValuesAsText("status").stream().filter("lost"::equals).count();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}