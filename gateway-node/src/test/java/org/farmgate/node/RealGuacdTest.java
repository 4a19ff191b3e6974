package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * The node against a real guacd and real targets, where a developer has them (these machines build guacd 1.6.0
 * from apache/guacamole-server and run TigerVNC's Xvnc and OpenSSH on loopback; the suite elsewhere uses the
 * synthetic guacd). Set {@code FARMGATE_REAL_GUACD=host:port}, {@code FARMGATE_REAL_VNC=host:port:password} and
 * {@code FARMGATE_REAL_SSH=host:port:user:password}; each test skips without what it needs.
 *
 * <p>What only a real guacd can show: that it draws the target's screen through the node, sends a user who joins
 * (a page coming back, a share link's watcher) the whole current display, and accepts a read-only join.
 */
class RealGuacdTest {

    private static final String GUACD = System.getenv("FARMGATE_REAL_GUACD");
    private static final String VNC = System.getenv("FARMGATE_REAL_VNC");
    private static final String SSH = System.getenv("FARMGATE_REAL_SSH");

    @Test
    void aVncDesktopIsDrawnAndAReadOnlyWatcherJoinsItAndSeesIt() throws Exception {
        assumeTrue(GUACD != null && VNC != null, "FARMGATE_REAL_GUACD and FARMGATE_REAL_VNC are not set");
        String[] vnc = VNC.split(":");
        try (TestNode node = node(Map.of())) {
            SessionInfo session = node.createSession(TestNode.ADMIN, "{\"session_type\":\"vnc\",\"hostname\":\""
                    + vnc[0] + "\",\"port\":" + vnc[1] + ",\"password\":\"" + vnc[2] + "\"}");
            try (WsClient owner = node.attach(session)) {
                List<String> drawn = drawing(owner);
                assertTrue(drawn.contains("img") || drawn.contains("png"), "the desktop was not drawn: " + drawn);
                AutoCloseable alive = keepAlive(owner);
                JsonNode share = TestNode.json(node.request("POST", "/api/sessions/" + session.sessionId()
                        + "/shares", TestNode.ADMIN, "{\"mode\":\"read-only\"}"));
                HttpResponse<String> granted = node.request("POST", "/api/share-ticket", null, "{\"share\":\""
                        + share.get("share_token").asText() + "\",\"name\":\"watcher\"}");
                String ticket = TestNode.json(granted).get("ticket").asText();
                try (WsClient watcher = node.connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
                    List<String> seen = drawing(watcher);
                    assertTrue(seen.contains("img") || seen.contains("png"),
                            "guacd did not send the joining watcher the current display: " + seen);
                    watcher.send("3.key,5.65507,1.1;");
                    assertEquals(1, node.session(session.sessionId()).watchers().size());
                }
                alive.close();
            }
            node.awaitStatus(session.sessionId(), SessionStatus.COMPLETED);
        }
    }

    /**
     * The product's own page, in Chromium, shows the real VNC desktop: its middle has the colour the developer gave
     * the desktop ({@code FARMGATE_REAL_VNC_RGB}, e.g. {@code xsetroot -solid '#00c800'} gives {@code 00c800}).
     */
    @Test
    void thePageShowsTheRealVncDesktop() throws Exception {
        String rgb = System.getenv("FARMGATE_REAL_VNC_RGB");
        assumeTrue(GUACD != null && VNC != null && rgb != null && HeadlessChromium.isInstalled(),
                "FARMGATE_REAL_GUACD, FARMGATE_REAL_VNC, FARMGATE_REAL_VNC_RGB or Chromium missing");
        String[] vnc = VNC.split(":");
        try (TestNode node = node(Map.of()); HeadlessChromium chromium = new HeadlessChromium(1280, 800)) {
            SessionInfo session = node.createSession(TestNode.ADMIN, "{\"session_type\":\"vnc\",\"hostname\":\""
                    + vnc[0] + "\",\"port\":" + vnc[1] + ",\"password\":\"" + vnc[2] + "\"}");
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + session.sessionId());
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 20_000));
            java.nio.file.Path shot = java.nio.file.Path.of("target", "screenshots", "client-real-vnc.png");
            int wanted = Integer.parseInt(rgb, 16);
            int[] seen = new int[1];
            TestNode.await(() -> {
                try {
                    String[] center = chromium.evaluate("(() => { const r = document.getElementById('display')"
                            + ".getBoundingClientRect(); return Math.round(r.left + r.width / 2) + ','"
                            + " + Math.round(r.top + r.height / 2); })()").split(",");
                    chromium.screenshot(shot);
                    seen[0] = javax.imageio.ImageIO.read(shot.toFile()).getRGB(Integer.parseInt(center[0]),
                            Integer.parseInt(center[1])) & 0xffffff;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                return close(seen[0], wanted);
            }, "the middle of the page's display did not become the desktop's #" + rgb);
        }
    }

    @Test
    void anSshSessionComesBackAfterItsClientWentAndIsDrawnAgain() throws Exception {
        assumeTrue(GUACD != null && SSH != null, "FARMGATE_REAL_GUACD and FARMGATE_REAL_SSH are not set");
        String[] ssh = SSH.split(":");
        try (TestNode node = node(Map.of("GW_REATTACH_GRACE_SECS", "60"))) {
            SessionInfo session = node.createSession(TestNode.ADMIN, "{\"hostname\":\"" + ssh[0] + "\",\"port\":"
                    + ssh[1] + ",\"username\":\"" + ssh[2] + "\",\"password\":\"" + ssh[3] + "\"}");
            try (WsClient first = node.attach(session)) {
                List<String> drawn = drawing(first);
                assertTrue(drawn.contains("img") || drawn.contains("png"), "the terminal was not drawn: " + drawn);
            }
            TestNode.await(() -> active(node, session) == 0, "the session did not wait for its client");
            Thread.sleep(20_000); // longer than guacd's 15 s patience with a silent user: the node answered for it
            try (WsClient again = node.attach(session)) {
                List<String> drawn = drawing(again);
                assertTrue(drawn.contains("img") || drawn.contains("png"), "the returning client saw nothing: "
                        + drawn);
            }
            assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                    .statusCode());
        }
    }

    /** Colours within a few steps of each other on every channel (the page scales the desktop). */
    private static boolean close(int seen, int wanted) {
        for (int shift : new int[] {16, 8, 0}) {
            if (Math.abs(((seen >> shift) & 0xff) - ((wanted >> shift) & 0xff)) >= 24) {
                return false;
            }
        }
        return true;
    }

    /**
     * A real guacd checks the key the node gives it: the key read at the first session is the one guacd's libssh2 is
     * shown (else that session would be refused: the node learnt the order guacd's libssh2 asks in, Debian 12's
     * 1.10 asking for ECDSA first and 1.11 for Ed25519), and after the server is reinstalled with new keys guacd
     * refuses it.
     */
    @Test
    void guacdRefusesAnSshServerWhoseKeyChanged() throws Exception {
        assumeTrue(GUACD != null && org.farmgate.testkit.ssh.TestSshd.isInstalled(),
                "FARMGATE_REAL_GUACD is not set, or Debian's openssh-server is not installed");
        Map<String, String> settings = Map.of("GW_SSH_HOST_KEYS", "accept-new");
        try (org.farmgate.testkit.ssh.TestSshd sshd = org.farmgate.testkit.ssh.TestSshd.start("ed25519", "ecdsa",
                "rsa"); TestNode node = node(settings)) {
            String body = "{\"hostname\":\"127.0.0.1\",\"port\":" + sshd.port()
                    + ",\"username\":\"nobody\",\"password\":\"wrong\"}";
            // guacd tells its users "Aborted. See logs." either way: 512 for a key that did not match, 769 for the
            // wrong password it reaches once the key matched
            String first = guacdError(node, node.createSession(TestNode.ADMIN, body));
            JsonNode order = TestNode.json(node.request("GET", "/api/ssh/known-hosts", TestNode.ADMIN, null))
                    .get("key_order");
            System.out.println("guacd's host-key order, as the node learnt it: " + order);
            assertTrue(order.get("learnt_from_guacd").asBoolean(), order.toString());
            assertTrue(first.endsWith(".769;"), "the key read at first use is not the one guacd was shown: " + first);
            sshd.reinstall();
            SessionInfo refused = node.createSession(TestNode.ADMIN, body);
            String changed = guacdError(node, refused);
            assertTrue(changed.endsWith(".512;"), changed);
            JsonNode check = TestNode.json(node.request("GET", "/api/sessions/" + refused.sessionId()
                    + "/host-key?check=true", TestNode.ADMIN, null));
            assertEquals("false", check.get("matches_trusted").asText(), check.toString());
        }
    }

    /**
     * A real guacd reaches an SSH target through a real OpenSSH jump host: it connects to the node's forward, is
     * given the target's key read through the chain, reaches the target's login (refused: 769), and a target
     * reinstalled behind the hop is refused by guacd (512).
     */
    @Test
    void guacdReachesATargetThroughAJumpHostAndChecksItsKey() throws Exception {
        assumeTrue(GUACD != null && org.farmgate.testkit.ssh.TestSshd.isInstalled(),
                "FARMGATE_REAL_GUACD is not set, or Debian's openssh-server is not installed");
        try (org.farmgate.testkit.ssh.TestSshd target = org.farmgate.testkit.ssh.TestSshd.start("ed25519", "ecdsa");
                org.farmgate.testkit.ssh.TestSshd bastion = org.farmgate.testkit.ssh.TestSshd.start("ed25519");
                TestNode node = node(Map.of("GW_SSH_HOST_KEYS", "accept-new"))) {
            String body = "{\"hostname\":\"127.0.0.1\",\"port\":" + target.port()
                    + ",\"username\":\"nobody\",\"password\":\"wrong\",\"jump_hosts\":[{\"hostname\":\"127.0.0.1\","
                    + "\"port\":" + bastion.port() + ",\"username\":\"" + bastion.user() + "\",\"private_key\":"
                    + com.fasterxml.jackson.databind.json.JsonMapper.builder().build()
                            .writeValueAsString(bastion.clientKey()) + "}]}";
            String first = guacdError(node, node.createSession(TestNode.ADMIN, body));
            assertTrue(first.endsWith(".769;"), "through the hop to the target's login: " + first);
            target.reinstall();
            String changed = guacdError(node, node.createSession(TestNode.ADMIN, body));
            assertTrue(changed.endsWith(".512;"), "a target reinstalled behind the hop: " + changed);
        }
    }

    /**
     * A thumbnail from a real guacd: a logged-in SSH session to Debian's OpenSSH, joined read-only by the node, which
     * paints what guacd 1.6's join sends (the terminal: a dark screen with the prompt's light text).
     */
    @Test
    void guacdGivesAThumbnailOfARealSshSession() throws Exception {
        assumeTrue(GUACD != null && org.farmgate.testkit.ssh.TestSshd.isInstalled(),
                "FARMGATE_REAL_GUACD is not set, or Debian's openssh-server is not installed");
        try (org.farmgate.testkit.ssh.TestSshd sshd = org.farmgate.testkit.ssh.TestSshd.start("ed25519");
                TestNode node = node(Map.of("GW_THUMBNAIL_SECS", "1"))) {
            String body = "{\"hostname\":\"127.0.0.1\",\"port\":" + sshd.port() + ",\"username\":\"" + sshd.user()
                    + "\",\"private_key\":" + com.fasterxml.jackson.databind.json.JsonMapper.builder().build()
                            .writeValueAsString(sshd.clientKey()) + "}";
            SessionInfo session = node.createSession(TestNode.ADMIN, body);
            try (WsClient client = node.attach(session); Kept alive = keepAliveAfter(client)) {
                // the shell's prompt follows the first frame: ask again (a new picture each second) until it shows
                Shown[] last = {null};
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                        .pollInterval(java.time.Duration.ofMillis(1100)).until(() -> {
                            last[0] = thumbnail(node, session.sessionId());
                            return last[0].light() > 20;
                        });
                Shown shown = last[0];
                System.out.println("thumbnail of a real SSH session: " + shown.dark() + " dark and " + shown.light()
                        + " light pixels of " + shown.pixels());
                assertTrue(shown.dark() > shown.pixels() / 2, "not a terminal's dark screen");
                assertTrue(shown.light() > 20, "no text on the terminal: the prompt is missing");
                java.nio.file.Files.createDirectories(java.nio.file.Path.of("target", "screenshots"));
                java.nio.file.Files.write(java.nio.file.Path.of("target", "screenshots", "real-ssh-thumbnail.jpg"),
                        shown.jpeg());
            }
        }
    }

    /**
     * A real SSH session recorded through the node: the recording plays in the records page with the terminal's
     * text on it, its key log holds what was typed, and guacd 1.6's own {@code guacenc} (at {@code FARMGATE_GUACENC},
     * when set) converts it to a video without an error.
     */
    @Test
    void aRealSshSessionIsRecordedPlaysAndConverts() throws Exception {
        assumeTrue(GUACD != null && org.farmgate.testkit.ssh.TestSshd.isInstalled(),
                "FARMGATE_REAL_GUACD is not set, or Debian's openssh-server is not installed");
        try (org.farmgate.testkit.ssh.TestSshd sshd = org.farmgate.testkit.ssh.TestSshd.start("ed25519");
                TestNode node = node(Map.of("GW_RECORDING", "all", "GW_RECORDING_KEYS", "true"))) {
            String body = "{\"hostname\":\"127.0.0.1\",\"port\":" + sshd.port() + ",\"username\":\"" + sshd.user()
                    + "\",\"private_key\":" + com.fasterxml.jackson.databind.json.JsonMapper.builder().build()
                            .writeValueAsString(sshd.clientKey()) + "}";
            SessionInfo session = node.createSession(TestNode.ADMIN, body);
            try (WsClient client = node.attach(session); Kept alive = keepAliveAfter(client)) {
                alive.awaitQuiet(java.time.Duration.ofSeconds(1)); // the prompt
                for (char c : "echo farmgate-was-here\r".toCharArray()) {
                    String keysym = c == '\r' ? String.valueOf(0xff0d) : String.valueOf((int) c);
                    client.send(Instruction.of("key", keysym, "1").encode() + Instruction.of("key", keysym, "0")
                            .encode());
                    Thread.sleep(30);
                }
                alive.awaitQuiet(java.time.Duration.ofSeconds(1)); // the echo
                client.send("10.disconnect;");
            }
            String recording = recorded(node, session);
            long keys = WsClient.parse(recording).stream().filter(i -> i.opcode().equals("key")).count();
            assertEquals(2 * "echo farmgate-was-here\r".length(), keys, "every key press and release is recorded");
            // the last frame: the terminal with the command and its echo
            String light = playedInThePage(node, session, "real-ssh-recording.png", "(() => { let n = 0; for (const c "
                    + "of document.querySelectorAll('.player-screen canvas')) { const d = c.getContext('2d')"
                    + ".getImageData(0, 0, c.width, c.height).data; for (let i = 0; i < d.length; i += 4) { if (d[i] + "
                    + "d[i + 1] + d[i + 2] > 300) n++; } } return String(n); })()");
            assertTrue(light == null || Integer.parseInt(light) > 200, "the terminal's text is drawn: " + light);
            converted(session);
        }
    }

    /**
     * A real VNC desktop recorded through the node plays in the page with the desktop's colour in its middle
     * ({@code FARMGATE_REAL_VNC_RGB}), and {@code guacenc} converts it.
     */
    @Test
    void aRealVncSessionIsRecordedPlaysAndConverts() throws Exception {
        String rgb = System.getenv("FARMGATE_REAL_VNC_RGB");
        assumeTrue(GUACD != null && VNC != null && rgb != null, "FARMGATE_REAL_GUACD, FARMGATE_REAL_VNC or "
                + "FARMGATE_REAL_VNC_RGB is not set");
        String[] vnc = VNC.split(":");
        try (TestNode node = node(Map.of("GW_RECORDING", "all"))) {
            SessionInfo session = node.createSession(TestNode.ADMIN, "{\"session_type\":\"vnc\",\"hostname\":\""
                    + vnc[0] + "\",\"port\":" + vnc[1] + ",\"password\":\"" + vnc[2] + "\"}");
            try (WsClient client = node.attach(session); Kept alive = keepAliveAfter(client)) {
                client.send(Instruction.of("mouse", "200", "150", "0").encode());
                alive.awaitQuiet(java.time.Duration.ofSeconds(1)); // the pointer drawn where it went
                client.send("10.disconnect;");
            }
            String recording = recorded(node, session);
            assertTrue(WsClient.parse(recording).stream().anyMatch(i -> i.opcode().equals("mouse")),
                    "the pointer is recorded");
            // the default layer is the largest canvas (the cursor and buffers are others)
            String middle = playedInThePage(node, session, "real-vnc-recording.png", "(() => { const c = [...document"
                    + ".querySelectorAll('.player-screen canvas')].sort((a, b) => b.width * b.height - a.width * "
                    + "a.height)[0]; const d = c.getContext('2d').getImageData(c.width / 2, c.height / 2, 1, 1).data; "
                    + "return [d[0], d[1], d[2]].map(v => v.toString(16).padStart(2, '0')).join(''); })()", rgb);
            assertTrue(middle == null || middle.equals(rgb), "the desktop's colour in the middle: " + middle);
            converted(session);
        }
    }

    /**
     * A real RDP session (FreeRDP in guacd, xrdp as the server: {@code FARMGATE_REAL_RDP=host:port:user:password},
     * bench/scripts/guacd-targets) recorded through the node with its keys: the recording holds the typed keys and the
     * pointer, plays in the page with the typed command and its echo drawn (the user's xterm), and {@code guacenc}
     * converts it (it crashed on the join's pointer before the recording started where guacd's own does).
     */
    @Test
    void aRealRdpSessionIsRecordedPlaysAndConverts() throws Exception {
        String rdpTarget = System.getenv("FARMGATE_REAL_RDP");
        assumeTrue(GUACD != null && rdpTarget != null, "FARMGATE_REAL_GUACD or FARMGATE_REAL_RDP is not set");
        String[] rdp = rdpTarget.split(":");
        try (TestNode node = node(Map.of("GW_RECORDING", "all", "GW_RECORDING_KEYS", "true"))) {
            SessionInfo session = node.createSession(TestNode.ADMIN, "{\"session_type\":\"rdp\",\"hostname\":\""
                    + rdp[0] + "\",\"port\":" + rdp[1] + ",\"username\":\"" + rdp[2] + "\",\"password\":\"" + rdp[3]
                    + "\",\"security\":\"any\",\"ignore_cert\":true,\"width\":1024,\"height\":768}");
            try (WsClient client = node.attach(session); Kept alive = keepAliveAfter(client)) {
                alive.awaitQuiet(java.time.Duration.ofMillis(1500)); // xrdp's login and the user's X session
                client.send(Instruction.of("mouse", "512", "384", "0").encode());
                for (char c : "echo rdp\r".toCharArray()) {
                    String keysym = c == '\r' ? String.valueOf(0xff0d) : String.valueOf((int) c);
                    client.send(Instruction.of("key", keysym, "1").encode() + Instruction.of("key", keysym, "0")
                            .encode());
                    Thread.sleep(30);
                }
                alive.awaitQuiet(java.time.Duration.ofSeconds(1)); // the echo
                client.send("10.disconnect;");
            }
            String recording = recorded(node, session);
            List<Instruction> recorded = WsClient.parse(recording);
            assertEquals(2 * "echo rdp\r".length(), recorded.stream().filter(i -> i.opcode().equals("key")).count(),
                    "every key press and release is recorded");
            assertTrue(recorded.stream().anyMatch(i -> i.opcode().equals("mouse")), "the pointer is recorded");
            assertTrue(recorded.stream().anyMatch(i -> i.opcode().equals("img") || i.opcode().equals("blob")),
                    "the desktop is drawn in it");
            // the last frame: the user's xterm with the command and its echo
            String light = playedInThePage(node, session, "real-rdp-recording.png", "(() => { let n = 0; for (const c "
                    + "of document.querySelectorAll('.player-screen canvas')) { const d = c.getContext('2d')"
                    + ".getImageData(0, 0, c.width, c.height).data; for (let i = 0; i < d.length; i += 4) { if (d[i] + "
                    + "d[i + 1] + d[i + 2] > 300) n++; } } return String(n); })()");
            assertTrue(light == null || Integer.parseInt(light) > 200, "the terminal's text is drawn: " + light);
            converted(session);
        }
    }

    /** The session's recording once it is complete, kept in target/recordings. */
    private static String recorded(TestNode node, SessionInfo session) throws Exception {
        String name = session.sessionId() + ".guac";
        org.awaitility.Awaitility.await("the recording is complete").atMost(java.time.Duration.ofSeconds(30))
                .until(() -> node.request("GET", "/api/recordings?state=complete", TestNode.ADMIN, null).body()
                        .contains(name));
        HttpResponse<String> played = node.request("GET", "/api/recordings/" + name, TestNode.ADMIN, null);
        assertEquals(200, played.statusCode());
        java.nio.file.Path file = recordingFile(session);
        java.nio.file.Files.createDirectories(file.getParent());
        java.nio.file.Files.writeString(file, played.body());
        System.out.println("real " + session.sessionType().wireName() + " recording: " + played.body().length()
                + " bytes in " + file.toAbsolutePath());
        return played.body();
    }

    private static java.nio.file.Path recordingFile(SessionInfo session) {
        return java.nio.file.Path.of("target", "recordings", session.sessionId() + ".guac");
    }

    /**
     * Plays the recording on the records page to its end and evaluates {@code check} on the last frame (drawn a
     * moment after the player stops: asked again for up to 10 s until it gives {@code expected}, when given); null
     * without Chromium.
     */
    private static String playedInThePage(TestNode node, SessionInfo session, String screenshot, String check)
            throws Exception {
        return playedInThePage(node, session, screenshot, check, null);
    }

    private static String playedInThePage(TestNode node, SessionInfo session, String screenshot, String check,
            String expected) throws Exception {
        if (!HeadlessChromium.isInstalled()) {
            return null;
        }
        try (HeadlessChromium chromium = new HeadlessChromium(1200, 900)) {
            chromium.navigate("http://127.0.0.1:" + node.port() + "/records.html#recordings&token=" + TestNode.ADMIN);
            String button = "document.querySelector('tr[data-recording=\"" + session.sessionId()
                    + "\"] button.play')";
            chromium.awaitValue("String(Boolean(" + button + "))", "true", 15_000);
            chromium.evaluate(button + ".click()");
            chromium.awaitValue("document.getElementById('player').dataset.state", "paused", 60_000);
            if (expected != null) {
                chromium.awaitValue(check, expected, 10_000);
            }
            String found = chromium.evaluate(check);
            System.out.println("played in Chromium: " + found);
            chromium.screenshot(java.nio.file.Path.of("target", "screenshots", screenshot));
            return found;
        }
    }

    /** guacd's own converter ({@code FARMGATE_GUACENC}, when set) makes a video of the recording without an error. */
    private static void converted(SessionInfo session) throws Exception {
        String guacenc = System.getenv("FARMGATE_GUACENC");
        if (guacenc == null) {
            return;
        }
        java.nio.file.Path file = recordingFile(session);
        Process convert = new ProcessBuilder(guacenc, "-s", "1024x768", "-f", file.toString())
                .redirectErrorStream(true).start();
        String out = new String(convert.getInputStream().readAllBytes());
        assertEquals(0, convert.waitFor(), "guacenc: " + out);
        java.nio.file.Path video = java.nio.file.Path.of(file + ".m4v");
        System.out.println("guacenc: " + java.nio.file.Files.size(video) + " bytes of video; " + out.trim());
        assertTrue(java.nio.file.Files.size(video) > 1000, out);
    }

    /** A thumbnail as the node gives it, with its dark and light pixels counted. */
    private record Shown(byte[] jpeg, int dark, int light, int pixels) {
    }

    private static Shown thumbnail(TestNode node, String sessionId) throws Exception {
        java.net.http.HttpResponse<byte[]> shown = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + node.port()
                        + "/api/sessions/" + sessionId + "/thumbnail"))
                        .header("Authorization", "Bearer " + TestNode.ADMIN).build(),
                java.net.http.HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, shown.statusCode(), () -> new String(shown.body()));
        java.awt.image.BufferedImage picture = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(
                shown.body()));
        assertEquals(320, picture.getWidth());
        int dark = 0;
        int light = 0;
        for (int y = 0; y < picture.getHeight(); y++) {
            for (int x = 0; x < picture.getWidth(); x++) {
                java.awt.Color c = new java.awt.Color(picture.getRGB(x, y));
                int sum = c.getRed() + c.getGreen() + c.getBlue();
                dark += sum < 150 ? 1 : 0;
                light += sum > 300 ? 1 : 0;
            }
        }
        return new Shown(shown.body(), dark, light, picture.getWidth() * picture.getHeight());
    }

    /** Waits until guacd has drawn the session, then keeps it alive. */
    private static Kept keepAliveAfter(WsClient client) throws Exception {
        drawing(client);
        return keepAlive(client);
    }

    /** guacd's error for a session that cannot log in: the instruction, or "none" when guacd sent none in 20 s. */
    private static String guacdError(TestNode node, SessionInfo session) throws Exception {
        try (WsClient client = node.attach(session)) {
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (System.nanoTime() < deadline && !client.isClosed()) {
                String message = client.nextMessage();
                if (message == null) {
                    continue;
                }
                for (Instruction instruction : WsClient.parse(message)) {
                    if (instruction.opcode().equals("error")) {
                        return instruction.toString();
                    }
                    if (instruction.opcode().equals("sync")) {
                        client.send(Instruction.of("sync", instruction.arg(0)).encode());
                    }
                }
            }
            return "none";
        }
    }

    private static TestNode node(Map<String, String> more) throws Exception {
        String[] guacd = GUACD.split(":");
        Map<String, String> values = new java.util.HashMap<>(Map.of("GW_GUACD_HOST", guacd[0], "GW_GUACD_PORT",
                guacd[1], "GW_GUACD_STEP_TIMEOUT_MS", "10000"));
        values.putAll(more);
        return TestNode.start(new SyntheticGuacdOptions(), values);
    }

    /**
     * The opcodes a client receives until it has been drawn something and synced, answering each sync and sending a
     * {@code nop} now and then, as guacamole-common-js does: guacd drops a user it has heard nothing from for 15 s,
     * and a still screen sends few syncs to answer.
     */
    private static List<String> drawing(WsClient client) throws Exception {
        List<String> opcodes = new ArrayList<>();
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (System.nanoTime() < deadline && !(opcodes.contains("sync")
                && (opcodes.contains("img") || opcodes.contains("png")))) {
            for (Instruction instruction : WsClient.parse(client.nextMessage())) {
                opcodes.add(instruction.opcode());
                answer(client, instruction);
            }
        }
        return opcodes;
    }

    private static void answer(WsClient client, Instruction instruction) {
        if (instruction.opcode().equals("sync")) {
            client.send(Instruction.of("sync", instruction.arg(0)).encode());
        }
        if (instruction.opcode().equals("error")) {
            throw new AssertionError("guacd refused: " + instruction);
        }
    }

    private static Kept keepAlive(WsClient client) {
        return new Kept(client);
    }

    /**
     * Keeps a client alive in guacd's eyes while the test does something else (a {@code nop} a second, its syncs
     * answered), and notes when guacd last drew, so that a test waits for a screen to settle instead of a fixed time.
     */
    private static final class Kept implements AutoCloseable {

        private final java.util.concurrent.ScheduledExecutorService timer = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor();
        private volatile long lastDrawn = System.nanoTime();
        private long ticks;

        Kept(WsClient client) {
            timer.scheduleAtFixedRate(() -> {
                try {
                    if (ticks++ % 10 == 0) {
                        client.send("3.nop;");
                    }
                    for (Instruction instruction : client.drain()) {
                        answer(client, instruction);
                        if (!instruction.opcode().equals("sync") && !instruction.opcode().equals("nop")) {
                            lastDrawn = System.nanoTime();
                        }
                    }
                } catch (RuntimeException | org.farmgate.protocol.WireFormatException e) {
                    // the client closed: nothing left to keep alive
                }
            }, 0, 100, java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        /** Until guacd has drawn nothing for {@code quiet} (a prompt shown, a login done, an echo drawn). */
        void awaitQuiet(java.time.Duration quiet) {
            org.awaitility.Awaitility.await("the screen settles").atMost(java.time.Duration.ofSeconds(30))
                    .pollInterval(java.time.Duration.ofMillis(100))
                    .until(() -> System.nanoTime() - lastDrawn >= quiet.toNanos());
        }

        @Override
        public void close() {
            timer.shutdownNow();
        }
    }

    private static int active(TestNode node, SessionInfo session) {
        try {
            return node.session(session.sessionId()).activeConnections();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
