package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pages every node serves, in Debian's headless Chromium: the admin page shows every node of a 3-node cluster
 * and follows sessions as they come and go; the client page connects to a session with guacamole-common-js (from
 * the npm registry at build time), through a node that is not the session's. Screenshots are kept in
 * target/screenshots.
 */
class BrowserPagesTest {

    private static final Path SHOTS = Path.of("target", "screenshots");

    @BeforeAll
    static void needsChromium() {
        assumeTrue(HeadlessChromium.isInstalled(), "Debian's chromium is not installed (apt-get install chromium)");
    }

    @Test
    void theAdminPageShowsEveryNodeAndFollowsTheSessions() throws Exception {
        try (TestCluster cluster = TestCluster.start(3, n -> Map.of("GW_MEMORY_BUDGET_MB", String.valueOf(n * 1000),
                "GW_HEARTBEAT_MS", "300"));
                HeadlessChromium chromium = new HeadlessChromium(1400, 600)) {
            chromium.navigate("http://127.0.0.1:" + cluster.node(1).port() + "/admin.html#token=" + TestNode.ADMIN);
            assertEquals("3", chromium.awaitValue("String(document.querySelectorAll('#nodes tr').length)", "3",
                    10_000), "a row per node");
            assertEquals("", chromium.evaluate("location.hash"), "the token left the address bar");
            assertEquals("0", chromium.evaluate("document.querySelector('#totals tr').dataset.totalSessions"));

            for (int i = 0; i < 4; i++) {
                cluster.node(2).createSession(TestNode.ADMIN, "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\"}");
            }
            assertEquals("4", chromium.awaitValue("document.querySelector('#totals tr').dataset.totalSessions", "4",
                    10_000), "the page follows new sessions without a reload");
            assertEquals("4", chromium.evaluate("document.querySelector('tr[data-node=\"node-3\"]').dataset.sessions"),
                    "the node with the most free memory took them");
            chromium.screenshot(SHOTS.resolve("admin-page.png"));

            chromium.evaluate("document.querySelector('tr[data-node=\"node-3\"] button').click()");
            assertEquals("draining", chromium.awaitValue(
                    "document.querySelector('tr[data-node=\"node-3\"]').dataset.state", "draining", 10_000),
                    "the drain button drains");
            assertTrue(Files.size(SHOTS.resolve("admin-page.png")) > 10_000);
        }
    }

    @Test
    void theClientPageConnectsWithGuacamoleCommonJsThroughAnyNode() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of("GW_MEMORY_BUDGET_MB", n == 2 ? "5000" : "100"));
                HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            SessionInfo session = cluster.node(1).sshSession();
            assertEquals("node-2", session.nodeId());
            chromium.navigate("http://127.0.0.1:" + cluster.node(1).port() + "/#token=" + TestNode.ADMIN
                    + "&connect=" + session.sessionId());
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000),
                    "guacamole-common-js reached CONNECTED: " + chromium.evaluate("document.getElementById('status')"
                            + ".textContent"));
            cluster.node(2).awaitStatus(session.sessionId(), SessionStatus.ACTIVE);
            TestNode.await(() -> cluster.node(2).guacd.lastSession().received().stream()
                    .anyMatch(instruction -> instruction.opcode().equals("sync")), "the page does not answer syncs");
            chromium.screenshot(SHOTS.resolve("client-page.png"));

            chromium.evaluate("document.getElementById('disconnect').click()");
            cluster.node(2).awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
        }
    }

    @Test
    void theClientPageShowsGuacamolesStatusOnErrors() throws Exception {
        try (TestNode node = TestNode.start(); HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            SessionInfo session = node.createSession(TestNode.ADMIN, "{\"hostname\":\"127.0.0.1\",\"port\":9}");
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals("515", chromium.awaitValue("document.body.dataset.error", "515", 15_000));
            assertTrue(chromium.evaluate("document.getElementById('status').textContent").contains("515"));
        }
    }
}
