package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticConnection;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * A client that goes without a word (a reload, a lost network, the page's node dying) used to end its session. The
 * session now waits GW_REATTACH_GRACE_SECS with its guacd connection held (the node answers guacd's syncs, which
 * drops a silent user), and a client that comes back joins that connection and is sent its current display.
 */
class ReattachTest {

    /** A guacd that streams frames (each with a sync) and drops a user that answers none for 2 s. */
    private static final SyntheticGuacdOptions STRICT = new SyntheticGuacdOptions()
            .stream(Duration.ofMillis(200), 200).idleTimeout(Duration.ofSeconds(2));

    @Test
    void aClientThatComesBackJoinsTheSameConnection() throws Exception {
        try (TestNode node = TestNode.start(STRICT, Map.of("GW_REATTACH_GRACE_SECS", "30"))) {
            SessionInfo session = node.sshSession();
            leaveSilently(node, session);
            assertEquals(SessionStatus.ACTIVE, node.session(session.sessionId()).status());
            SyntheticConnection held = node.guacd.lastSession();
            Thread.sleep(4000); // twice guacd's patience with a silent user: the node must have answered for it
            assertTrue(held.isOpen(), "guacd dropped the held connection: nobody answered its syncs");

            try (WsClient second = node.attach(session)) {
                second.awaitInstruction("size"); // the whole current display, as guacd sends a joining user
                second.awaitInstruction("sync");
                SyntheticConnection joined = node.guacd.lastSession();
                assertEquals(held.connectionId(), joined.joined(), "the client joined the running connection");
                assertEquals("", joined.connectValues().getOrDefault("password", ""),
                        "a join sends guacd no credential again");
                assertEquals(1, activeConnections(node, session));
            }
            TestNode.await(() -> activeConnections(node, session) == 0, "the second client's going was not seen");
            assertTrue(held.isOpen(), "the held connection outlives every client that goes");
            assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                    .statusCode());
            TestNode.await(() -> !held.isOpen(), "deleting a waiting session lets guacd's connection go");
            node.assertNothingLeaks();
        }
    }

    @Test
    void aSessionWhoseClientDoesNotComeBackEndsAfterTheGrace() throws Exception {
        try (TestNode node = TestNode.start(STRICT, Map.of("GW_REATTACH_GRACE_SECS", "2"))) {
            SessionInfo session = node.sshSession();
            try (WsClient client = node.attach(session)) {
                client.awaitInstruction("sync");
            }
            node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
            assertEquals("no client came back within 2 s", node.session(session.sessionId()).endReason());
            node.assertNothingLeaks();
        }
    }

    @Test
    void aClientThatSaysDisconnectEndsItsSessionAtOnce() throws Exception {
        try (TestNode node = TestNode.start(STRICT, Map.of("GW_REATTACH_GRACE_SECS", "30"))) {
            SessionInfo session = node.sshSession();
            try (WsClient client = node.attach(session)) {
                client.awaitInstruction("sync");
                client.send("10.disconnect;");
                node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
            }
            node.assertNothingLeaks();
        }
    }

    @Test
    void aReturnedClientThatSaysDisconnectEndsTheSession() throws Exception {
        try (TestNode node = TestNode.start(STRICT, Map.of("GW_REATTACH_GRACE_SECS", "30"))) {
            SessionInfo session = node.sshSession();
            leaveSilently(node, session);
            try (WsClient second = node.attach(session)) {
                second.awaitInstruction("sync");
                second.send("10.disconnect;");
                node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
            }
            node.assertNothingLeaks();
        }
    }

    @Test
    void aClientComesBackThroughAnotherNode() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of("GW_MEMORY_BUDGET_MB", n == 2 ? "5000" : "100",
                "GW_REATTACH_GRACE_SECS", "30"))) {
            SessionInfo session = cluster.node(2).sshSession();
            try (WsClient first = cluster.node(2).attach(session)) {
                first.awaitInstruction("sync");
            }
            TestNode.await(() -> activeConnections(cluster.node(2), session) == 0, "not waiting");
            try (WsClient relayed = cluster.node(1).attach(session)) {
                relayed.awaitInstruction("size");
                assertEquals(List.of(cluster.node(2).guacd.sessions().get(0).connectionId()),
                        List.of(cluster.node(2).guacd.lastSession().joined()));
            }
            assertEquals(204, cluster.node(1).request("DELETE", "/api/sessions/" + session.sessionId(),
                    TestNode.ADMIN, null).statusCode());
            for (TestNode node : cluster.nodes) {
                node.assertNothingLeaks();
            }
        }
    }

    /** A client attaches, sees the display, and goes without a word; the session waits for it. */
    private static void leaveSilently(TestNode node, SessionInfo session) throws Exception {
        try (WsClient first = node.attach(session)) {
            first.awaitInstruction("sync");
        }
        TestNode.await(() -> activeConnections(node, session) == 0, "the session did not wait for its client");
    }

    private static int activeConnections(TestNode node, SessionInfo session) {
        try {
            return node.session(session.sessionId()).activeConnections();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
