package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.farmgate.model.Json;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.hostkey.HostKeyProbe;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.ssh.TestSshd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SSH host keys against Debian's OpenSSH: the probe reads the real server's key, a first session trusts it and gives
 * it to guacd as {@code host-key}, and a server reinstalled with new keys is refused by guacd (the synthetic guacd
 * checks as guacd 1.6 does) with words a person understands, until an admin pins or forgets.
 */
class HostKeysTest {

    /** The synthetic guacd makes no SSH connection to learn its order from: it is given, as libssh2 1.11's. */
    private static final String LIBSSH2_1_11 = String.join(",", HostKeyProbe.LIBSSH2_ORDER);

    private static TestSshd sshd;
    private static TestSshd other;
    private static TestNode node;
    private static Path book;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(TestSshd.isInstalled(), "Debian's openssh-server is not installed (apt-get install openssh-server)");
        sshd = TestSshd.start("ed25519", "ecdsa", "rsa");
        other = TestSshd.start("ed25519");
        book = Files.createTempFile("farmgate-book", ".json");
        Files.writeString(book, "{\"folders\":[{\"path\":\"lab\",\"entries\":[{\"name\":\"pinned\",\"type\":\"ssh\","
                + "\"hostname\":\"127.0.0.1\",\"port\":" + other.port() + ",\"username\":\"u\",\"password\":\"pw\","
                + "\"host_key\":\"" + other.publicKey("ed25519") + "\"}]}]}");
        node = TestNode.start(new SyntheticGuacdOptions().sshHostKeys(port -> {
            try {
                return port == sshd.port() ? sshd.publicKey("ed25519")
                        : port == other.port() ? other.publicKey("ed25519") : null;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }), Map.of("GW_SSH_HOST_KEYS", "accept-new", "GW_SSH_HOST_KEY_ORDER", LIBSSH2_1_11,
                "GW_ADDRESSBOOK_FILE", book.toString(), "GW_REATTACH_GRACE_SECS", "60"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (node != null) {
            node.close();
        }
        for (TestSshd each : new TestSshd[] {sshd, other}) {
            if (each != null) {
                each.close();
            }
        }
        if (book != null) {
            Files.deleteIfExists(book);
        }
    }

    @BeforeEach
    void nothingTrusted() throws Exception {
        node.request("DELETE", "/api/ssh/known-hosts/127.0.0.1/" + sshd.port(), TestNode.ADMIN, null);
    }

    private static String keyOf(String pub) {
        String[] parts = pub.split("\\s+");
        return parts[0] + " " + parts[1];
    }

    private static SessionInfo session(int port) throws Exception {
        return node.createSession(TestNode.ADMIN, "{\"hostname\":\"127.0.0.1\",\"port\":" + port
                + ",\"username\":\"u\",\"password\":\"pw\"}");
    }

    /** The {@code host-key} guacd was given for the session, once its tunnel opened. */
    private static String hostKeyGiven(SessionInfo session) throws Exception {
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            return node.guacd.lastSession().connectValues().get("host-key");
        }
    }

    @Test
    void theProbeReadsTheRealServersKeyInLibssh2sOrder() throws Exception {
        String poweruser = node.createToken("probe-power", "poweruser");
        HttpResponse<String> probed = node.request("POST", "/api/ssh/probe-host-key", poweruser,
                "{\"hostname\":\"127.0.0.1\",\"port\":" + sshd.port() + "}");
        assertEquals(200, probed.statusCode(), probed.body());
        JsonNode key = TestNode.json(probed);
        assertEquals(keyOf(sshd.publicKey("ed25519")), key.get("host_key").asText(), "ed25519 first, as libssh2 1.11");
        assertEquals(sshd.fingerprint("ed25519"), key.get("fingerprint").asText(), "ssh-keygen -lf's fingerprint");
        assertEquals("ssh-ed25519", key.get("algorithm").asText());
        assertTrue(key.get("trusted").isNull());
    }

    @Test
    void theProbeSaysWhatIsWrong() throws Exception {
        String viewer = node.createToken("probe-viewer", "viewer");
        assertEquals(403, node.request("POST", "/api/ssh/probe-host-key", viewer, "{\"hostname\":\"127.0.0.1\"}")
                .statusCode());
        String[][] cases = {
            {"{\"port\":22}", "400", "field 'hostname' is required"},
            {"{\"hostname\":\"127.0.0.1\",\"port\":70000}", "400", "field 'port' must be a number"},
            {"{\"hostname\":\"127.0.0.1\",\"user\":\"x\"}", "400", "user"},
            {"{\"hostname\":\"10.1.2.3\"}", "400", "outside the networks allowed for ssh"},
            {"{\"hostname\":\"127.0.0.1\",\"port\":9}", "502", "could not read the SSH host key of 127.0.0.1:9"},
            {"{\"hostname\":\"127.0.0.1\",\"port\":" + node.port() + "}", "502", "before showing an SSH host key"},
        };
        for (String[] each : cases) {
            HttpResponse<String> refused = node.request("POST", "/api/ssh/probe-host-key", TestNode.ADMIN, each[0]);
            assertEquals(each[1], String.valueOf(refused.statusCode()), each[0] + ": " + refused.body());
            assertTrue(refused.body().contains(each[2]), each[0] + ": " + refused.body());
        }
    }

    @Test
    void aFirstSessionTrustsTheKeyAndGuacdIsGivenIt() throws Exception {
        SessionInfo first = session(sshd.port());
        JsonNode trust = TestNode.json(node.request("GET", "/api/sessions/" + first.sessionId() + "/host-key",
                TestNode.ADMIN, null));
        assertTrue(trust.get("first_use").asBoolean());
        assertEquals(sshd.fingerprint("ed25519"), trust.get("host_key").get("fingerprint").asText());
        assertEquals("[127.0.0.1]:" + sshd.port() + " " + keyOf(sshd.publicKey("ed25519")), hostKeyGiven(first));

        SessionInfo second = session(sshd.port());
        assertFalse(TestNode.json(node.request("GET", "/api/sessions/" + second.sessionId() + "/host-key",
                TestNode.ADMIN, null)).get("first_use").asBoolean(), "trusted once, by the first");
        JsonNode known = TestNode.json(node.request("GET", "/api/ssh/known-hosts", TestNode.ADMIN, null));
        assertEquals("accept-new", known.get("policy").asText());
        assertTrue(known.get("known_hosts").toString().contains("\"how\":\"first-use\""), known.toString());
        Awaitility.await("the trust in the audit log").atMost(Duration.ofSeconds(10)).until(() -> node.request("GET",
                "/api/audit?action=ssh.host_key_trust", TestNode.ADMIN, null).body().contains(first.sessionId()));
        String viewer = node.createToken("hk-viewer", "viewer");
        assertEquals(404, node.request("GET", "/api/sessions/" + first.sessionId() + "/host-key", viewer, null)
                .statusCode(), "only for who may see the session");
    }

    @Test
    void aReinstalledServerIsRefusedUntilAnAdminForgetsOrPins() throws Exception {
        String trusted = keyOf(sshd.publicKey("ed25519"));
        assertTrue(hostKeyGiven(session(sshd.port())).endsWith(trusted));
        sshd.reinstall();
        String now = keyOf(sshd.publicKey("ed25519"));
        assertNotEquals(trusted, now);

        SessionInfo refused = session(sshd.port());
        try (WsClient ws = node.attach(refused)) {
            Instruction error = ws.awaitInstruction("error");
            assertEquals("512", error.arg(1));
            assertEquals("Aborted. See logs.", error.arg(0), "all guacd tells its users");
        }
        JsonNode check = TestNode.json(node.request("GET", "/api/sessions/" + refused.sessionId()
                + "/host-key?check=true", TestNode.ADMIN, null));
        assertFalse(check.get("matches_trusted").asBoolean(), check.toString());
        assertEquals(sshd.fingerprint("ed25519"), check.get("shown").get("fingerprint").asText());
        JsonNode probed = TestNode.json(node.request("POST", "/api/ssh/probe-host-key", TestNode.ADMIN,
                "{\"hostname\":\"127.0.0.1\",\"port\":" + sshd.port() + "}"));
        assertFalse(probed.get("matches_trusted").asBoolean(), "the probe says the key changed");

        String operator = node.createToken("hk-operator", "poweruser");
        assertEquals(403, node.request("DELETE", "/api/ssh/known-hosts/127.0.0.1/" + sshd.port(), operator, null)
                .statusCode(), "only an admin forgets");
        HttpResponse<String> pinned = node.request("PUT", "/api/ssh/known-hosts", TestNode.ADMIN,
                "{\"hostname\":\"127.0.0.1\",\"port\":" + sshd.port() + ",\"host_key\":\"" + sshd.publicKey("ed25519")
                        + "\"}");
        assertEquals(200, pinned.statusCode(), pinned.body());
        assertEquals("pinned", TestNode.json(pinned).get("how").asText());
        assertTrue(hostKeyGiven(session(sshd.port())).endsWith(now), "the pinned key reaches guacd");

        assertEquals(200, node.request("DELETE", "/api/ssh/known-hosts/127.0.0.1/" + sshd.port(), TestNode.ADMIN,
                null).statusCode());
        assertEquals(404, node.request("DELETE", "/api/ssh/known-hosts/127.0.0.1/" + sshd.port(), TestNode.ADMIN,
                null).statusCode(), "forgotten already");
        SessionInfo again = session(sshd.port());
        assertTrue(TestNode.json(node.request("GET", "/api/sessions/" + again.sessionId() + "/host-key",
                TestNode.ADMIN, null)).get("first_use").asBoolean(), "trusted on first use again");
    }

    @Test
    void aPinIsCheckedAndAnEntrysOwnKeyWins() throws Exception {
        String[][] cases = {
            {"{\"hostname\":\"127.0.0.1\",\"port\":22}", "field 'host_key' is empty"},
            {"{\"hostname\":\"127.0.0.1\",\"host_key\":\"ssh-ed25519 nope!\"}", "is not base64"},
            {"{\"hostname\":\"127.0.0.1\",\"host_key\":\"ssh-dss AAAA\"}", "is not an SSH public key"},
            {"{\"host_key\":\"" + other.publicKey("ed25519") + "\"}", "field 'hostname' is required"},
        };
        for (String[] each : cases) {
            HttpResponse<String> refused = node.request("PUT", "/api/ssh/known-hosts", TestNode.ADMIN, each[0]);
            assertEquals(400, refused.statusCode(), each[0] + ": " + refused.body());
            assertTrue(refused.body().contains(each[1]), each[0] + ": " + refused.body());
        }

        JsonNode entry = TestNode.json(node.request("GET", "/api/addressbook", TestNode.ADMIN, null)).get("folders")
                .get(0).get("entries").get(0);
        assertEquals(other.publicKey("ed25519"), entry.get("host_key").asText(), "a host key is public");
        HttpResponse<String> created = node.request("POST", "/api/addressbook/folders/shared/lab/entries/pinned/"
                + "connect", TestNode.ADMIN, null);
        assertEquals(201, created.statusCode(), created.body());
        SessionInfo session = Json.mapper().readValue(created.body(), SessionInfo.class);
        assertEquals("[127.0.0.1]:" + other.port() + " " + keyOf(other.publicKey("ed25519")), hostKeyGiven(session));
        assertTrue(TestNode.json(node.request("GET", "/api/ssh/known-hosts", TestNode.ADMIN, null))
                .get("known_hosts").toString().indexOf(String.valueOf(other.port())) < 0,
                "an entry's own key is not trusted for others");
    }

    @Test
    void thePageShowsTheFingerprintAtFirstUseAndTheWordsWhenTheKeyChanged() throws Exception {
        assumeTrue(HeadlessChromium.isInstalled(), "Debian's chromium is not installed (apt-get install chromium)");
        SessionInfo first = session(sshd.port());
        try (HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + first.sessionId());
            assertEquals("false", chromium.awaitValue("String(document.getElementById('hostkey').hidden)", "false",
                    10_000), "the fingerprint is shown before the session starts");
            assertEquals(sshd.fingerprint("ed25519"), chromium.evaluate(
                    "document.getElementById('hostkey-fingerprint').textContent"));
            chromium.screenshot(Path.of("target", "screenshots", "client-host-key-first-use.png"));
            chromium.evaluate("document.getElementById('hostkey-accept').click()");
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000));
        }
        String trusted = sshd.fingerprint("ed25519");
        sshd.reinstall();
        SessionInfo refused = session(sshd.port());
        try (HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            chromium.navigate("http://127.0.0.1:" + node.port() + "/#token=" + TestNode.ADMIN + "&connect="
                    + refused.sessionId());
            String words = "The SSH host key of 127.0.0.1:" + sshd.port() + " is not the one trusted for it: the machine "
                    + "was reinstalled, or something is between the gateway and it. Trusted: " + trusted + "; shown now: "
                    + sshd.fingerprint("ed25519");
            assertTrue(chromium.awaitValue("document.getElementById('overlay-text').textContent.startsWith('"
                    + words + "')", "true", 15_000).equals("true"),
                    chromium.evaluate("document.getElementById('overlay-text').textContent"));
            chromium.screenshot(Path.of("target", "screenshots", "client-host-key-changed.png"));
        }
    }

    @Test
    void strictRefusesAnUnknownKeyAndAWholeRestartKeepsWhatWasTrusted(@TempDir Path data) throws Exception {
        Map<String, String> settings = Map.of("GW_SSH_HOST_KEYS", "strict", "GW_SSH_HOST_KEY_ORDER", LIBSSH2_1_11,
                "GW_DATA_DIR", data.toString());
        String body = "{\"hostname\":\"127.0.0.1\",\"port\":" + sshd.port() + ",\"username\":\"u\"}";
        try (TestNode strict = TestNode.start(new SyntheticGuacdOptions(), settings)) {
            HttpResponse<String> refused = strict.request("POST", "/api/sessions", TestNode.ADMIN, body);
            assertEquals(409, refused.statusCode(), refused.body());
            assertTrue(refused.body().contains("no SSH host key is trusted for 127.0.0.1:" + sshd.port()
                    + ", and this gateway connects only to known keys (GW_SSH_HOST_KEYS=strict)"), refused.body());
            assertEquals(200, strict.request("PUT", "/api/ssh/known-hosts", TestNode.ADMIN, "{\"hostname\":"
                    + "\"127.0.0.1\",\"port\":" + sshd.port() + ",\"host_key\":\"" + sshd.publicKey("ed25519")
                    + "\"}").statusCode());
            assertEquals(201, strict.request("POST", "/api/sessions", TestNode.ADMIN, body).statusCode());
        }
        try (TestNode again = TestNode.start(new SyntheticGuacdOptions(), settings)) {
            Awaitility.await("the pin put back from the database").atMost(Duration.ofSeconds(20)).until(() -> again
                    .request("GET", "/api/ssh/known-hosts", TestNode.ADMIN, null).body()
                    .contains("\"port\":" + sshd.port()));
            HttpResponse<String> created = again.request("POST", "/api/sessions", TestNode.ADMIN, body);
            assertEquals(201, created.statusCode(), created.body());
        }
    }
}
