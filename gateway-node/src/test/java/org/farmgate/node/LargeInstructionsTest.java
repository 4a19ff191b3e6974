package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * An instruction from guacd longer than a message's 64 KiB goes to the browser alone, in one frame of up to
 * {@code WireLimits.FROM_GUACD}'s 256 KiB. A browser relayed by another node must get it as a browser attached to
 * the owner does: the relay's WebSocket client once refused frames over 65 KiB and ended the session with 520.
 */
class LargeInstructionsTest {

    /** Four elements of 51 200 characters: 200 KiB, each element within guacd's own 64 Ki limit for one. */
    private static final Instruction LARGE = Instruction.of("name",
            Collections.nCopies(4, "x".repeat(51_200)).toArray(String[]::new));
    private static final SyntheticGuacdOptions SENDS_LARGE = new SyntheticGuacdOptions().afterReady(List.of(LARGE))
            .stream(Duration.ofMillis(200), 200);

    @Test
    void aBrowserAttachedToTheOwnerGetsIt() throws Exception {
        try (TestNode node = TestNode.start(SENDS_LARGE, Map.of())) {
            SessionInfo session = node.sshSession();
            try (WsClient browser = node.attach(session)) {
                assertReceived(browser);
            }
            assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                    .statusCode());
            node.assertNothingLeaks();
        }
    }

    @Test
    void aBrowserRelayedByAnotherNodeGetsIt() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, SENDS_LARGE,
                n -> Map.of("GW_MEMORY_BUDGET_MB", n == 2 ? "5000" : "100"))) {
            SessionInfo session = cluster.node(2).sshSession();
            assertEquals("node-2", session.nodeId());
            try (WsClient browser = cluster.node(1).attach(session)) {
                assertReceived(browser);
                assertFalse(browser.isClosed(), () -> "the relay closed the browser with " + browser.closeCode()
                        + " " + browser.closeReason());
                assertEquals(SessionStatus.ACTIVE, cluster.node(2).session(session.sessionId()).status());
            }
            assertEquals(204, cluster.node(1).request("DELETE", "/api/sessions/" + session.sessionId(),
                    TestNode.ADMIN, null).statusCode());
            for (TestNode node : cluster.nodes) {
                node.assertNothingLeaks();
            }
        }
    }

    private static void assertReceived(WsClient browser) throws Exception {
        Instruction received = browser.awaitInstruction("name");
        assertEquals(LARGE, received);
        browser.awaitInstruction("sync"); // the session goes on after it: a frame streamed later
        assertEquals(List.of(), browser.violations());
    }
}
