package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.node.TestCluster;
import org.farmgate.node.TestNode;
import org.farmgate.testkit.client.WsClient;
import org.junit.jupiter.api.Test;

/**
 * The fault campaign found a record that called a session live on a node that did not hold it (its end written
 * while a split's partitions migrated, and lost): nothing repaired it. A node now marks such records lost, after
 * seeing them twice, and leaves the sessions it holds alone; in a cluster the coordinator reads the directory once a
 * round and tells each node its part.
 */
class OrphanRecordsTest {

    @Test
    void aRecordOfASessionTheNodeDoesNotHoldIsMarkedLostOnTheSecondRound() throws Exception {
        try (TestNode node = TestNode.start()) {
            SessionInfo held = node.sshSession();
            ghost(node, "ghost-session", "test-node");
            OrphanRecords repair = node.node.orphanRecords();

            assertEquals(List.of(), repair.repairOnce().await(10, TimeUnit.SECONDS), "one sighting is not enough");
            assertEquals(List.of("ghost-session"), repair.repairOnce().await(10, TimeUnit.SECONDS));
            assertEquals(SessionStatus.LOST, node.session("ghost-session").status());
            assertEquals(SessionStatus.PENDING, node.session(held.sessionId()).status(), "a held session stays");
            assertTrue(node.request("GET", "/metrics", null, null).body()
                    .contains("farmgate_repairs_total{kind=\"orphan_records\"} 1.0"), "the repair is counted");
            node.request("DELETE", "/api/sessions/" + held.sessionId(), TestNode.ADMIN, null);
        }
    }

    @Test
    void anEndTheDirectoryMissedIsWrittenAgain() throws Exception {
        try (TestNode node = TestNode.start()) {
            SessionInfo session = node.sshSession();
            try (WsClient client = node.attach(session)) {
                client.awaitInstruction("sync");
            }
            node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
            SessionInfo ended = node.session(session.sessionId());
            // The record from before the end, as if the end never landed.
            SessionInfo stale = ended.attached().withRevision(ended.revision() - 1);
            node.node.runtime().sessions().set(stale.sessionId(), stale).toCompletableFuture().get(10,
                    TimeUnit.SECONDS);
            assertEquals(SessionStatus.ACTIVE, node.session(session.sessionId()).status());
            OrphanRecords repair = node.node.orphanRecords();
            repair.repairOnce().await(10, TimeUnit.SECONDS);
            assertEquals(List.of(session.sessionId()), repair.repairOnce().await(10, TimeUnit.SECONDS));
            TestNode.await(() -> {
                try {
                    return node.session(session.sessionId()).status() == SessionStatus.COMPLETED;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "the node's own end was not written again");
        }
    }

    @Test
    void theCoordinatorsCensusReachesTheNodeARecordNames() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, number -> Map.of())) {
            TestNode coordinator = cluster.node(1);
            TestNode named = cluster.node(2);
            SessionInfo ghost = ghost(coordinator, "ghost-of-node-2", "node-2");
            OrphanRecords census = coordinator.node.orphanRecords();

            assertEquals(List.of(), census.repairOnce().await(10, TimeUnit.SECONDS), "nothing of the coordinator's");
            assertEquals(SessionStatus.ACTIVE, named.session(ghost.sessionId()).status(), "one sighting is not enough");
            assertEquals(List.of(), census.repairOnce().await(10, TimeUnit.SECONDS));
            named.awaitStatus(ghost.sessionId(), SessionStatus.LOST); // node-2 marks the record it was told of
            assertTrue(named.request("GET", "/metrics", null, null).body()
                    .contains("farmgate_repairs_total{kind=\"orphan_records\"} 1.0"), "node-2 counts the repair");
        }
    }

    /** A record that calls {@code sessionId} live on {@code nodeId}, which nobody holds, written through {@code via}. */
    private static SessionInfo ghost(TestNode via, String sessionId, String nodeId) throws Exception {
        SessionInfo ghost = new SessionInfo(sessionId, Protocol.SSH, SessionStatus.ACTIVE, Instant.now(), "127.0.0.1",
                22, "u", "admin", "admin", 1, nodeId, 17, null, null);
        via.node.runtime().sessions().set(sessionId, ghost).toCompletableFuture().get(10, TimeUnit.SECONDS);
        return ghost;
    }
}
