package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
            SessionInfo session = openThroughNodeOne(cluster, chromium);
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

    /** What went wrong, in words: a row per failure as guacd reports it, the status kept small for support. */
    @ParameterizedTest(name = "{1}")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', textBlock = """
            {"hostname":"127.0.0.1","port":9}                        | 515 | The remote machine cannot be reached at 127.0.0.1:9.
            {"hostname":"127.0.0.1","password":"wrong"}              | 769 | The username or password is wrong.
            {"session_type":"rdp","hostname":"127.0.0.1","port":9}   | 519 | The remote machine refused this kind of connection. Try another security mode, or ask whether it takes remote desktop connections.
            {"session_type":"rdp","hostname":"127.0.0.1","port":3390} | 519 | The remote machine's certificate is not trusted. Connect with "ignore certificate" if you trust it.
            """)
    void theClientPageSaysInWordsWhatWentWrong(String body, int code, String text) throws Exception {
        // Port 3390 stands for an RDP host whose certificate guacd does not trust: FreeRDP's words, as guacd's error.
        SyntheticGuacdOptions guacd = new SyntheticGuacdOptions().afterReady(body.contains("3390") ? List.of(
                Instruction.of("error", "TLS certificate verification failed", "519")) : List.of());
        try (TestNode node = TestNode.start(guacd, Map.of());
                HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            SessionInfo session = node.createSession(TestNode.ADMIN, body);
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals(String.valueOf(code), chromium.awaitValue("document.body.dataset.error", String.valueOf(code),
                    15_000));
            assertEquals(text, chromium.evaluate("document.getElementById('overlay-text').textContent"));
            assertTrue(chromium.evaluate("document.getElementById('overlay-code').textContent").startsWith(
                    "status " + code), "the number stays, small, for support");
            chromium.screenshot(SHOTS.resolve("client-error-" + code + (body.contains("3390") ? "-tls" : "") + ".png"));
        }
    }

    /**
     * An RDP desktop is drawn on Guacamole's default layer (z-index -1): it must be what the page shows, not the
     * black background of the display's box (the desktop was painted beneath it).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rdp", "vnc"})
    void aDesktopIsVisibleAndTakesTheWindowsSize(String protocol) throws Exception {
        SyntheticGuacdOptions green = new SyntheticGuacdOptions().afterReady(List.of(
                Instruction.of("rect", "0", "0", "0", "4000", "4000"),
                Instruction.of("cfill", "14", "0", "0", "200", "0", "255"),
                Instruction.of("sync", "1", "0")));
        try (TestNode node = TestNode.start(green, Map.of()); HeadlessChromium chromium = new HeadlessChromium(1280,
                800)) {
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN);
            chromium.awaitValue("String(!document.getElementById('main').hidden)", "true", 10_000);
            chromium.evaluate("(() => { const f = document.getElementById('create'); f.session_type.value = '"
                    + protocol + "'; f.session_type.onchange(); f.hostname.value = '127.0.0.1';"
                    + " f.ignore_cert.checked = true; f.requestSubmit(); return 'ok'; })()");
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000),
                    chromium.evaluate("document.getElementById('status').textContent"));
            chromium.awaitValue("String(document.querySelectorAll('#display canvas').length > 0)", "true", 10_000);
            Path shot = SHOTS.resolve("client-" + protocol + ".png");
            Thread.sleep(500); // a frame for the fill to be painted
            chromium.screenshot(shot);
            java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(shot.toFile());
            String[] center = chromium.evaluate("(() => { const r = document.getElementById('display')"
                    + ".getBoundingClientRect(); return Math.round(r.left + r.width / 2) + ',' + Math.round(r.top"
                    + " + r.height / 2); })()").split(",");
            int rgb = image.getRGB(Integer.parseInt(center[0]), Integer.parseInt(center[1]));
            int red = (rgb >> 16) & 0xff;
            int greenValue = (rgb >> 8) & 0xff;
            assertTrue(greenValue > 150 && red < 60, "the middle of the display is the desktop's green, not black: #"
                    + Integer.toHexString(rgb & 0xffffff));

            Map<String, String> connect = node.guacd.lastSession().connectValues();
            if (protocol.equals("rdp")) {
                assertEquals("true", connect.get("ignore-cert"), "the form's RDP fields reach guacd");
                assertEquals("display-update", connect.get("resize-method"), "RDP follows the window");
            }
            List<String> size = node.guacd.lastSession().handshake().get("size");
            int width = Integer.parseInt(size.get(0));
            int height = Integer.parseInt(size.get(1));
            assertTrue(width > 1100 && width <= 1280 && height > 600 && height < 800,
                    "the session takes the window's room, not 1024x768: " + size);
        }
    }

    @Test
    void aReloadComesBackToTheSameSession() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_REATTACH_GRACE_SECS", "30"));
                HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            SessionInfo session = node.sshSession();
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000));
            String first = node.guacd.lastSession().connectionId();
            chromium.navigate("http://127.0.0.1:" + node.port() + "/");
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000),
                    "the reloaded page is back in its session");
            TestNode.await(() -> first.equals(node.guacd.lastSession().joined()), "it joined the same connection");
            assertEquals(SessionStatus.ACTIVE, node.session(session.sessionId()).status());
        }
    }

    @Test
    void aNodeThatShutsDownWarnsItsUsers() throws Exception {
        TestNode node = TestNode.start();
        try (HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            SessionInfo session = node.sshSession();
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000));
            node.node.shutdown(java.time.Duration.ofSeconds(30)); // a SIGTERM's drain
            String notice = chromium.awaitValue("document.getElementById('notice').hidden ? '' : "
                    + "document.getElementById('notice').textContent.slice(0, 39)",
                    "The gateway node that runs this session", 10_000);
            assertEquals("The gateway node that runs this session", notice);
            chromium.screenshot(SHOTS.resolve("client-shutdown-notice.png"));
        } finally {
            node.crash();
        }
    }

    @Test
    void theClipboardGoesBothWaysAndTheDisplayFollowsTheWindow() throws Exception {
        String remote = java.util.Base64.getEncoder().encodeToString("copied over there".getBytes(
                java.nio.charset.StandardCharsets.UTF_8));
        SyntheticGuacdOptions copies = new SyntheticGuacdOptions().afterReady(List.of(
                Instruction.of("clipboard", "7", "text/plain"), Instruction.of("blob", "7", remote),
                Instruction.of("end", "7")));
        try (TestNode node = TestNode.start(copies, Map.of()); HeadlessChromium chromium = new HeadlessChromium(1200,
                800)) {
            SessionInfo session = node.sshSession();
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000));
            assertEquals("copied over there", chromium.awaitValue("document.getElementById('clipboard').value",
                    "copied over there", 10_000), "what the remote side copies reaches the page");

            chromium.evaluate("(() => { const c = document.getElementById('clipboard'); c.value = 'typed here';"
                    + " c.dispatchEvent(new Event('input')); return 'ok'; })()");
            String typed = java.util.Base64.getEncoder().encodeToString("typed here".getBytes(
                    java.nio.charset.StandardCharsets.UTF_8));
            TestNode.await(() -> node.guacd.lastSession().received().stream().anyMatch(i -> i.opcode().equals("blob")
                    && i.args().size() > 1 && i.arg(1).equals(typed)), "the page's clipboard did not reach guacd");

            chromium.call("Emulation.setDeviceMetricsOverride", Map.of("width", 900, "height", 700,
                    "deviceScaleFactor", 1, "mobile", false));
            TestNode.await(() -> node.guacd.lastSession().received().stream().anyMatch(i -> i.opcode().equals("size")
                    && i.args().size() >= 2 && Integer.parseInt(i.arg(0)) <= 900 && Integer.parseInt(i.arg(0)) > 800),
                    "the window's new size did not reach guacd");
        }
    }

    @Test
    void anAdminSeesEveryonesSessionsAndEndsOne() throws Exception {
        try (TestNode node = TestNode.start(); HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            String worker = node.createToken("worker", "poweruser");
            SessionInfo theirs = node.createSession(worker, "{\"hostname\":\"127.0.0.1\"}");
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN);
            assertEquals("false", chromium.awaitValue("String(document.getElementById('everyone-toggle').hidden)",
                    "false", 10_000), "an admin may show everyone's sessions");
            chromium.evaluate("(() => { const e = document.getElementById('everyone'); e.checked = true;"
                    + " e.onchange(); return 'ok'; })()");
            String row = "document.querySelector('tr[data-session=\"" + theirs.sessionId() + "\"]')";
            assertEquals("worker", chromium.awaitValue(row + " ? " + row + ".children[3].textContent : ''", "worker",
                    10_000), "the row names the session's user");
            chromium.evaluate("(() => { for (const b of " + row + ".querySelectorAll('button')) {"
                    + " if (b.textContent === 'End') b.click(); } return 'ok'; })()");
            TestNode.await(() -> node.node.sessions().live().isEmpty(), "the admin's End did not end it");
        }
    }

    /**
     * A gateway node dies under a connected page: the page says whose fault it is and what to do, never that the
     * remote machine cannot be reached (guacamole-common-js turns an abnormal close into "upstream not found"). The
     * page is served by node 1, the session runs on node 2.
     */
    @ParameterizedTest(name = "{0} dies")
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', textBlock = """
            the page's node    | 1 | gateway-unreachable | is not answering: the gateway node serving this page may have stopped
            the session's node | 2 | node-lost           | stopped, and the session was lost with it. The remote machine is not at fault.
            """)
    void whenAGatewayNodeDiesThePageSaysWhoseFaultItIs(String which, int dying, String reason, String says)
            throws Exception {
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of("GW_MEMORY_BUDGET_MB", n == 2 ? "5000" : "100",
                "GW_HEARTBEAT_MS", "500"));
                HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            openThroughNodeOne(cluster, chromium);
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000));
            cluster.node(dying).crash();
            assertEquals(reason, chromium.awaitValue("document.body.dataset.error", reason, 45_000),
                    () -> evaluate(chromium, "document.getElementById('overlay-text').textContent"));
            String text = chromium.evaluate("document.getElementById('overlay-text').textContent");
            assertTrue(text.contains(says), text);
            assertTrue(!text.contains("cannot be reached at"), text);
            chromium.screenshot(SHOTS.resolve("client-" + reason + ".png"));
            if (dying == 1) {
                chromium.evaluate("document.getElementById('overlay-close').click()");
                assertEquals("true", chromium.awaitValue("String(document.getElementById('status').textContent"
                        + ".includes('the list below is as it was at'))", "true", 10_000),
                        () -> evaluate(chromium, "document.getElementById('status').textContent"));
                assertTrue(!chromium.evaluate("document.getElementById('sessions').dataset.stale ?? ''").isEmpty());
            }
        }
    }

    private static String evaluate(HeadlessChromium chromium, String expression) {
        try {
            return chromium.evaluate(expression);
        } catch (Exception e) {
            return e.toString();
        }
    }

    /**
     * The owner makes a read-only link from the menu; a second browser opens it, gives a name and watches, with no
     * keyboard or mouse of its own; the owner sees who watches, and stops sharing, which the watcher is told in words.
     */
    @Test
    void aSharedLinkLetsSomeoneWatchUntilTheOwnerStopsSharing() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions().stream(java.time.Duration.ofMillis(200), 200),
                Map.of()); HeadlessChromium owner = new HeadlessChromium(1200, 800);
                HeadlessChromium guest = new HeadlessChromium(1000, 700)) {
            SessionInfo session = node.sshSession();
            owner.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals("connected", owner.awaitValue("document.body.dataset.state", "connected", 15_000));
            owner.evaluate("(() => { document.getElementById('menu-button').click();"
                    + " document.getElementById('share-read-only').click(); return 'ok'; })()");
            String link = owner.awaitValue("document.getElementById('share-link').value.includes('#share=sht_')"
                    + " ? 'made' : ''", "made", 10_000);
            assertEquals("made", link);
            String url = owner.evaluate("document.getElementById('share-link').value");

            guest.navigate(url);
            guest.awaitValue("String(!document.querySelector('form.watch').hidden)", "true", 10_000);
            String where = guest.evaluate("location.href + ' ' + document.readyState + ' ' + document.body.dataset.state");
            assertEquals("", guest.evaluate("location.hash"), "the link left the guest's address bar: " + where);
            guest.evaluate("(() => { const f = document.querySelector('form.watch');"
                    + " f.querySelector('input').value = 'Bob'; f.requestSubmit(); return 'ok'; })()");
            assertEquals("connected", guest.awaitValue("document.body.dataset.state", "connected", 15_000),
                    guest.evaluate("document.getElementById('status').textContent"));
            assertEquals("read-only", guest.evaluate("document.body.dataset.watch"));
            guest.screenshot(SHOTS.resolve("client-watching.png"));
            assertEquals("Watching now: Bob", owner.awaitValue("document.getElementById('watchers').textContent",
                    "Watching now: Bob", 10_000), "the owner sees who watches");
            owner.screenshot(SHOTS.resolve("client-sharing-menu.png"));

            owner.evaluate("(() => { document.querySelector('#shares button').click(); return 'ok'; })()");
            String told = "The person who shared this session stopped sharing it.";
            assertEquals(told, guest.awaitValue("document.getElementById('overlay').hidden ? '' :"
                    + " document.getElementById('overlay-text').textContent", told, 10_000));
            guest.screenshot(SHOTS.resolve("client-share-revoked.png"));
            assertEquals("connected", owner.evaluate("document.body.dataset.state"), "the owner works on");
            assertTrue(node.guacd.connections().stream().filter(c -> c.joined() != null)
                    .flatMap(c -> c.received().stream()).noneMatch(i -> i.opcode().equals("key")
                            || i.opcode().equals("mouse")), "the watcher sent input");
        }
    }

    /** The on-screen keyboard's keys, clicked as a mouse clicks them, reach guacd as key presses; Shift shifts. */
    @Test
    void theOnScreenKeyboardTypes() throws Exception {
        try (TestNode node = TestNode.start(); HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            SessionInfo session = node.sshSession();
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000));
            chromium.evaluate("(() => { document.getElementById('keyboard-button').click(); return 'ok'; })()");
            chromium.awaitValue("String(document.querySelectorAll('#osk .guac-keyboard-key').length > 50)", "true",
                    10_000);
            click(chromium, ".guac-keyboard-key-0x61");
            click(chromium, ".guac-keyboard-key-lshift");
            click(chromium, ".guac-keyboard-key-0x61");
            chromium.screenshot(SHOTS.resolve("client-on-screen-keyboard.png"));
            TestNode.await(() -> pressed(node).size() >= 3, "the on-screen keys did not reach guacd");
            assertEquals(List.of("97", "65505", "65"), pressed(node), "a, then Shift and A");
        }
    }

    private static List<String> pressed(TestNode node) {
        return node.guacd.lastSession().received().stream().filter(i -> i.opcode().equals("key")
                && i.arg(1).equals("1")).map(i -> i.arg(0)).toList();
    }

    private static void click(HeadlessChromium chromium, String selector) throws Exception {
        String[] at = chromium.evaluate("(() => { const r = document.querySelector('" + selector + "')"
                + ".getBoundingClientRect(); return Math.round(r.left + r.width / 2) + ',' + Math.round(r.top"
                + " + r.height / 2); })()").split(",");
        for (String type : List.of("mousePressed", "mouseReleased")) {
            chromium.call("Input.dispatchMouseEvent", Map.of("type", type, "x", Integer.parseInt(at[0]),
                    "y", Integer.parseInt(at[1]), "button", "left", "clickCount", 1));
        }
    }

    /**
     * Behind a plain load balancer: the node that carried the page's WebSocket (relaying it to the session's node)
     * dies; the page says so, counts down, and comes back to the same session through the other node, joining the
     * guacd connection that was held meanwhile.
     */
    @Test
    void whenThePagesNodeDiesThePageComesBackThroughAnotherNode() throws Exception {
        assumeTrue(Balancer.isInstalled(), "Debian's haproxy is not installed (apt-get install haproxy)");
        try (TestCluster cluster = TestCluster.start(3, n -> Map.of("GW_MEMORY_BUDGET_MB", n == 3 ? "5000" : "100",
                "GW_REATTACH_GRACE_SECS", "60"));
                Balancer balancer = new Balancer(List.of(cluster.node(1), cluster.node(2)));
                HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            SessionInfo session = cluster.node(1).sshSession();
            assertEquals("node-3", session.nodeId());
            chromium.navigate(balancer.url() + "/#token=" + TestNode.ADMIN + "&connect=" + session.sessionId());
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000));
            String held = cluster.node(3).guacd.lastSession().connectionId();
            TestNode carrier = cluster.nodes.stream().limit(2).filter(node -> relayHops(node) > 0).findFirst()
                    .orElseThrow();
            carrier.crash();
            assertEquals("dropped", chromium.awaitValue("document.body.dataset.error", "dropped", 20_000),
                    "the other node says the session still runs");
            assertTrue(chromium.evaluate("document.getElementById('overlay-text').textContent").startsWith(
                    "The connection to the gateway was lost; the session is still running."));
            chromium.screenshot(SHOTS.resolve("client-reconnect-countdown.png"));
            assertEquals("true", chromium.awaitValue("String(document.getElementById('overlay').hidden"
                    + " && document.body.dataset.state === 'connected')", "true", 30_000),
                    "the page did not come back: " + chromium.evaluate("document.getElementById('status')"
                            + ".textContent"));
            TestNode.await(() -> held.equals(cluster.node(3).guacd.lastSession().joined()),
                    "the page did not rejoin the held connection");
            assertEquals(SessionStatus.ACTIVE, cluster.node(3).session(session.sessionId()).status());
        }
    }

    private static double relayHops(TestNode node) {
        try {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^farmgate_relay_hops_total (\\S+)")
                    .matcher(node.request("GET", "/metrics", null, null).body());
            return m.find() ? Double.parseDouble(m.group(1)) : 0;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void aWrongTokenIsRefusedWithAReason() throws Exception {
        try (TestNode node = TestNode.start(); HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=gwt_not-a-token");
            assertEquals("The saved token is no longer valid (revoked or expired).", chromium.awaitValue(
                    "document.querySelector('form.token .problem').textContent",
                    "The saved token is no longer valid (revoked or expired).", 10_000));
            chromium.evaluate("(() => { const f = document.querySelector('form.token');"
                    + " f.querySelector('input').value = 'still-wrong'; f.requestSubmit(); return 'ok'; })()");
            assertEquals("This token is not valid (unknown, revoked or expired).", chromium.awaitValue(
                    "document.querySelector('form.token .problem').textContent",
                    "This token is not valid (unknown, revoked or expired).", 10_000));
            String viewer = node.createToken("page-viewer", "viewer");
            chromium.evaluate("(() => { const f = document.querySelector('form.token');"
                    + " f.querySelector('input').value = '" + viewer + "'; f.requestSubmit(); return 'ok'; })()");
            chromium.awaitValue("String(!document.getElementById('main').hidden)", "true", 10_000);
            assertEquals("true", chromium.evaluate("String(document.getElementById('admin-link').hidden)"),
                    "a person without admin rights sees no admin link");
        }
    }

    /** A session on node 2, opened in the page that node 1 serves. */
    private static SessionInfo openThroughNodeOne(TestCluster cluster, HeadlessChromium chromium) throws Exception {
        SessionInfo session = cluster.node(1).sshSession();
        assertEquals("node-2", session.nodeId());
        chromium.navigate("http://127.0.0.1:" + cluster.node(1).port() + "/#token=" + TestNode.ADMIN + "&connect="
                + session.sessionId());
        return session;
    }
}
