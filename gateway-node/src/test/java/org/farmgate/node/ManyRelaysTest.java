package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.client.WsClient;
import org.junit.jupiter.api.Test;

/**
 * A node relays as many browsers to one owner as that owner holds sessions: more than the 50 WebSockets per
 * endpoint that Vert.x's client allows by default (the 51st used to wait until another browser left).
 */
class ManyRelaysTest {

    private static final int BROWSERS = 60;

    @Test
    void moreThanFiftyBrowsersAreRelayedToOneOwnerAtOnce() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of("GW_MEMORY_BUDGET_MB", n == 1 ? "5" : "100000",
                "GW_COST_SSH_MB", "10", "GW_MAX_SESSIONS_PER_USER", "200"))) {
            List<WsClient> browsers = new ArrayList<>();
            try {
                for (int i = 0; i < BROWSERS; i++) {
                    SessionInfo session = cluster.node(1).sshSession();
                    assertEquals("node-2", session.nodeId(), "node 1 has no room: every session is node 2's");
                    WsClient ws = cluster.node(1).attach(session);
                    ws.awaitInstruction("sync");
                    browsers.add(ws);
                }
                assertEquals(BROWSERS, cluster.node(2).node.sessions().live().size());
            } finally {
                browsers.forEach(WsClient::close);
            }
            for (TestNode node : cluster.nodes) {
                node.assertNothingLeaks();
            }
        }
    }
}
