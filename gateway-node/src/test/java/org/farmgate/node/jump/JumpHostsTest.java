package org.farmgate.node.jump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.InputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.farmgate.model.Json;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.TestNode;
import org.farmgate.node.hostkey.HostKeyProbe;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.ssh.TestBastion;
import org.farmgate.testkit.ssh.TestSshd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Targets behind SSH jump hosts: the node makes the hops (Apache MINA SSHD as the bastions, Debian's OpenSSH as the
 * target), guacd connects to the last hop's forward on loopback, every hop's key is checked, and nothing stays open
 * when the session ends or its chain cannot be made.
 */
class JumpHostsTest {

    private static TestSshd target;
    private static TestBastion first;
    private static TestBastion second;
    private static TestNode node;
    private static Path book;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(TestSshd.isInstalled(), "Debian's openssh-server is not installed (apt-get install openssh-server)");
        target = TestSshd.start("ed25519");
        first = TestBastion.start();
        second = TestBastion.start();
        book = Files.createTempFile("farmgate-book", ".json");
        Files.writeString(book, Json.mapper().writeValueAsString(Map.of("folders", java.util.List.of(Map.of(
                "path", "dmz", "entries", java.util.List.of(Map.of("name", "behind", "type", "ssh", "hostname",
                        "127.0.0.1", "port", target.port(), "username", "u", "password", "target-password",
                        "jump_hosts", java.util.List.of(Map.of("hostname", "127.0.0.1", "port", first.port(),
                                "username", TestBastion.USER, "password", TestBastion.PASSWORD)))))))));
        node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_SSH_HOST_KEYS", "accept-new",
                "GW_SSH_HOST_KEY_ORDER", String.join(",", HostKeyProbe.LIBSSH2_ORDER), "GW_ADDRESSBOOK_FILE",
                book.toString()));
    }

    @AfterAll
    static void stop() throws Exception {
        for (AutoCloseable each : new AutoCloseable[] {node, first, second, target}) {
            if (each != null) {
                each.close();
            }
        }
        if (book != null) {
            Files.deleteIfExists(book);
        }
    }

    private static String hop(TestBastion bastion, String login) {
        return "{\"hostname\":\"127.0.0.1\",\"port\":" + bastion.port() + ",\"username\":\"" + TestBastion.USER
                + "\"," + login + "}";
    }

    private static String password() {
        return "\"password\":\"" + TestBastion.PASSWORD + "\"";
    }

    private static HttpResponse<String> create(String sessionType, int port, String hops) throws Exception {
        return node.request("POST", "/api/sessions", TestNode.ADMIN, "{\"session_type\":\"" + sessionType
                + "\",\"hostname\":\"127.0.0.1\",\"port\":" + port + ",\"username\":\"u\",\"password\":\"p\","
                + "\"jump_hosts\":[" + hops + "]}");
    }

    /** Where guacd was told to connect for a session, and what the server there says first. */
    private record Reached(int port, String banner) {
    }

    /** Attaches to the session (its guacd connection made) and reads, meanwhile, what its forward reaches. */
    private static Reached reach(SessionInfo session) throws Exception {
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            Map<String, String> values = node.guacd.lastSession().connectValues();
            assertEquals("127.0.0.1", values.get("hostname"), "guacd connects to the chain's loopback end");
            int port = Integer.parseInt(values.get("port"));
            return new Reached(port, bannerAt(port));
        }
    }

    /** What the server at the end of a forward says first: the target's SSH banner. */
    private static String bannerAt(int port) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            byte[] line = new byte[64];
            int read = 0;
            while (read < line.length) {
                int b = in.read();
                if (b < 0 || b == '\n') {
                    break;
                }
                line[read++] = (byte) b;
            }
            return new String(line, 0, read, StandardCharsets.US_ASCII).trim();
        }
    }

    private static void awaitClosed(int port) {
        TestNode.await(() -> {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return false;
            } catch (java.io.IOException refused) {
                return true;
            }
        }, "the forward on port " + port + " still listens after its session ended");
    }

    @Test
    void oneHopReachesTheTargetAndClosesWithTheSession() throws Exception {
        HttpResponse<String> created = create("ssh", target.port(), hop(first, password()));
        assertEquals(201, created.statusCode(), created.body());
        SessionInfo session = Json.mapper().readValue(created.body(), SessionInfo.class);
        assertEquals(target.port(), session.port(), "the session names its target, not the forward");
        Reached reached = reach(session);
        int forward = reached.port();
        assertNotEquals(target.port(), forward);
        assertTrue(reached.banner().startsWith("SSH-2.0-OpenSSH"), "the forward reaches Debian's sshd: '"
                + reached.banner() + "'");
        JsonNode known = TestNode.json(node.request("GET", "/api/ssh/known-hosts", TestNode.ADMIN, null));
        assertTrue(known.toString().contains("\"port\":" + first.port()), "the hop's key trusted on first use: "
                + known);
        assertTrue(known.toString().contains("\"port\":" + target.port()), "and the target's, read through it: "
                + known);
        assertEquals("[127.0.0.1]:" + forward + " " + String.join(" ", java.util.Arrays.copyOf(
                target.publicKey("ed25519").split(" "), 2)), node.guacd.lastSession().connectValues().get("host-key"),
                "guacd is given the target's key for the forward's address");

        assertEquals(204, node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                .statusCode());
        awaitClosed(forward);
        TestNode.await(() -> first.openSessions() == 0, "the hop's SSH session stays open");
    }

    @Test
    void twoHopsOneByPasswordOneByKeyReachAnyProtocol() throws Exception {
        HttpResponse<String> created = create("ssh", target.port(), hop(first, password()) + ","
                + hop(second, "\"private_key\":" + Json.mapper().writeValueAsString(second.clientKey())));
        assertEquals(201, created.statusCode(), created.body());
        SessionInfo session = Json.mapper().readValue(created.body(), SessionInfo.class);
        Reached reached = reach(session);
        int forward = reached.port();
        assertTrue(reached.banner().startsWith("SSH-2.0-OpenSSH"), "through both hops to Debian's sshd");
        node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null);
        awaitClosed(forward);
        TestNode.await(() -> first.openSessions() == 0 && second.openSessions() == 0, "hops stay open");

        // RDP and VNC go the same way: the chain does not care what crosses it
        HttpResponse<String> rdp = create("rdp", target.port(), hop(first, password()));
        assertEquals(201, rdp.statusCode(), rdp.body());
        SessionInfo desktop = Json.mapper().readValue(rdp.body(), SessionInfo.class);
        assertTrue(reach(desktop).banner().startsWith("SSH-2.0-"));
        node.request("DELETE", "/api/sessions/" + desktop.sessionId(), TestNode.ADMIN, null);
    }

    @Test
    void anEntryKeepsItsHopsCredentialsToItself() throws Exception {
        JsonNode entry = TestNode.json(node.request("GET", "/api/addressbook", TestNode.ADMIN, null)).get("folders")
                .get(0).get("entries").get(0);
        assertTrue(entry.has("jump_hosts"), entry.toString());
        assertEquals(first.port(), entry.get("jump_hosts").get(0).get("port").asInt(), entry.toString());
        assertFalse(entry.toString().contains(TestBastion.PASSWORD), "no hop password in the public view");
        assertTrue(entry.get("has_credentials").asBoolean());
        HttpResponse<String> created = node.request("POST", "/api/addressbook/folders/shared/dmz/entries/behind/"
                + "connect", TestNode.ADMIN, null);
        assertEquals(201, created.statusCode(), created.body());
        SessionInfo session = Json.mapper().readValue(created.body(), SessionInfo.class);
        Reached reached = reach(session);
        int forward = reached.port();
        assertTrue(reached.banner().startsWith("SSH-2.0-OpenSSH"));
        node.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null);
        awaitClosed(forward);
    }

    @Test
    void aHopThatFailsSaysWhichAndWhyAndLeavesNothing() throws Exception {
        String[][] cases = {
            {hop(first, "\"password\":\"wrong\""), "502", "jump host 1 (127.0.0.1:" + first.port()
                    + ") refused user 'jump'"},
            {"{\"hostname\":\"127.0.0.1\",\"port\":9,\"username\":\"jump\",\"password\":\"x\"}", "502",
                    "jump host 1 (127.0.0.1:9) cannot be reached"},
            {hop(first, password()) + ",{\"hostname\":\"127.0.0.1\",\"port\":9,\"username\":\"jump\","
                    + "\"password\":\"x\"}", "502", "jump host 2 (127.0.0.1:9) cannot be reached from jump host 1"},
            {hop(first, password() + ",\"host_key\":\"" + target.publicKey("ed25519") + "\""), "502",
                    "the SSH host key of jump host 1 (127.0.0.1:" + first.port() + ") is not the one trusted for "
                            + "it (trusted " + target.fingerprint("ed25519") + ", shown SHA256:"},
            {hop(first, "\"private_key\":\"not a key\""), "400", "field 'jump_hosts[0].private_key' is not a "
                    + "private key the node can read"},
        };
        for (String[] each : cases) {
            HttpResponse<String> refused = create("ssh", target.port(), each[0]);
            assertEquals(each[1], String.valueOf(refused.statusCode()), each[0] + ": " + refused.body());
            assertTrue(refused.body().contains(each[2]), each[0] + ": " + refused.body());
        }
        TestNode.await(() -> first.openSessions() == 0, "a failed chain leaves its first hop open");
        node.assertNothingLeaks();
    }

    @Test
    void hopsAreReadStrictly() throws Exception {
        String[][] cases = {
            {"\"jump_hosts\":{}", "field 'jump_hosts' must be a list of jump hosts"},
            {"\"jump_hosts\":[{\"hostname\":\"127.0.0.1\",\"password\":\"x\"}]",
                    "field 'jump_hosts[0].username' is required"},
            {"\"jump_hosts\":[{\"hostname\":\"127.0.0.1\",\"username\":\"j\"}]",
                    "field 'jump_hosts[0]' needs a password or a private_key"},
            {"\"jump_hosts\":[{\"hostname\":\"127.0.0.1\",\"username\":\"j\",\"password\":\"x\",\"via\":1}]",
                    "unknown field 'jump_hosts[0].via'"},
            {"\"jump_hosts\":[{\"hostname\":\"127.0.0.1\",\"port\":22.5,\"username\":\"j\",\"password\":\"x\"}]",
                    "field 'jump_hosts[0].port' must be a number from 1 to 65535"},
            {"\"jump_hosts\":[{\"hostname\":\"10.1.2.3\",\"username\":\"j\",\"password\":\"x\"}]",
                    "field 'jump_hosts[0].hostname': 10.1.2.3 resolves to 10.1.2.3, outside the networks allowed "
                            + "for ssh"},
            {"\"jump_hosts\":[" + "{\"hostname\":\"127.0.0.1\",\"username\":\"j\",\"password\":\"x\"},".repeat(5)
                    + "{\"hostname\":\"127.0.0.1\",\"username\":\"j\",\"password\":\"x\"}]",
                    "field 'jump_hosts' has 6 hops, at most 5 are allowed"},
        };
        for (String[] each : cases) {
            HttpResponse<String> refused = node.request("POST", "/api/sessions", TestNode.ADMIN,
                    "{\"hostname\":\"127.0.0.1\"," + each[0] + "}");
            assertEquals(400, refused.statusCode(), each[0] + ": " + refused.body());
            assertTrue(refused.body().contains(each[1]), each[0] + ": " + refused.body());
        }
    }
}
