package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.farmgate.model.Json;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.vault.SyntheticVault;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The address book on a Vault that answers as a real one does, in rustguac's layout, served by a 2-node cluster:
 * ACLs, the shared cache, CRUD, connect (credentials from Vault to guacd and nowhere else), a Vault that goes down.
 */
class AddressBookTest {

    private static final String ROOT = "vault-root-token";
    private static Vertx vertx;
    private static SyntheticVault vault;
    private static TestCluster cluster;
    private static String ops;
    private static String nobody;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        vault = SyntheticVault.start(vertx, "secret", ROOT).await(10, TimeUnit.SECONDS);
        String base = "rustguac/shared/";
        vault.put(base + "ops/.config", new JsonObject().put("allowed_groups", new JsonArray().add("ops"))
                .put("description", "Operations").put("inherit_from_parent", false));
        vault.put(base + "ops/web-1", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1").put("port", 22)
                .put("username", "deploy").put("password", "from-vault-pw").put("display_name", "Web 1"));
        vault.put(base + "ops/db/.config", new JsonObject().put("allowed_groups", new JsonArray())
                .put("inherit_from_parent", true));
        vault.put(base + "ops/db/pg-1", new JsonObject().put("type", "rdp").put("hostname", "127.0.0.1")
                .put("ignore_cert", true).put("private_key", "KEY"));
        vault.put(base + "dev/.config", new JsonObject().put("allowed_groups", new JsonArray().add("dev")));
        vault.put(base + "dev/box", new JsonObject().put("type", "vnc").put("hostname", "127.0.0.1"));
        vault.put(base + "secret-stuff/x", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1"));

        cluster = TestCluster.start(2, n -> Map.of("VAULT_ADDR", vault.address(), "VAULT_TOKEN", ROOT,
                "GW_ADDRESSBOOK_TTL_SECS", "3600", "GW_MEMORY_BUDGET_MB", n == 2 ? "5000" : "100"));
        ops = createToken("ops-user", "operator", List.of("ops"));
        nobody = createToken("no-groups", "operator", List.of());
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
        vault.close().await(10, TimeUnit.SECONDS);
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    private static String createToken(String name, String role, List<String> groups) throws Exception {
        HttpResponse<String> created = cluster.node(1).request("POST", "/api/tokens", TestNode.ADMIN,
                Json.mapper().writeValueAsString(Map.of("name", name, "role", role, "groups", groups)));
        assertEquals(201, created.statusCode(), created.body());
        return TestNode.json(created).get("token").asText();
    }

    private static JsonNode book(TestNode node, String token) throws Exception {
        HttpResponse<String> response = node.request("GET", "/api/addressbook", token, null);
        assertEquals(200, response.statusCode(), response.body());
        return TestNode.json(response);
    }

    private static List<String> paths(JsonNode book) {
        return book.get("folders").findValuesAsText("path");
    }

    @Test
    void foldersFollowTheirGroupsAndEntriesHideTheirCredentials() throws Exception {
        JsonNode all = book(cluster.node(1), TestNode.ADMIN);
        assertEquals(List.of("dev", "ops", "ops/db", "secret-stuff"), paths(all));
        assertFalse(all.toString().contains("from-vault-pw"));
        assertFalse(all.toString().contains("KEY"));
        JsonNode web = all.get("folders").get(1).get("entries").get(0);
        assertEquals("web-1", web.get("name").asText());
        assertEquals("ssh", web.get("session_type").asText());
        assertEquals("Web 1", web.get("display_name").asText());
        assertEquals(22, web.get("port").asInt(), "JSON types are kept");
        assertTrue(web.get("has_credentials").asBoolean());
        assertFalse(web.has("password"));
        assertTrue(all.get("folders").get(1).get("has_children").asBoolean());
        assertEquals(List.of("ops"), all.get("folders").get(1).findValuesAsText("allowed_groups").isEmpty() ? List.of()
                : List.of(all.get("folders").get(1).get("allowed_groups").get(0).asText()));

        assertEquals(List.of("ops", "ops/db"), paths(book(cluster.node(2), ops)), "ops/db inherits from ops");
        assertEquals(List.of(), paths(book(cluster.node(2), nobody)));
        assertEquals(403, cluster.node(1).request("GET", "/api/addressbook",
                createToken("viewer-ab", "viewer", List.of("ops")), null).statusCode(), "viewers may not");
    }

    @Test
    void theSecondNodeServesTheCopyTheFirstLoaded() throws Exception {
        book(cluster.node(1), TestNode.ADMIN);
        long before = vault.requests();
        for (int i = 0; i < 20; i++) {
            book(cluster.node(2), TestNode.ADMIN);
        }
        assertEquals(before, vault.requests(), "warm reads never reach Vault");
    }

    /** A page that asks again with the copy's validator gets a 304 and no body until the book or its view changes. */
    @Test
    void anUnchangedBookIsAnsweredWithNotModified() throws Exception {
        HttpResponse<String> first = cluster.node(1).request("GET", "/api/addressbook", TestNode.ADMIN, null);
        String etag = first.headers().firstValue("ETag").orElseThrow();
        assertEquals("no-store", first.headers().firstValue("Cache-Control").orElseThrow());
        HttpResponse<String> again = cluster.node(2).request("GET", "/api/addressbook", TestNode.ADMIN, null,
                Map.of("If-None-Match", etag));
        assertEquals(304, again.statusCode(), again::body);
        assertEquals("", again.body());
        HttpResponse<String> otherView = cluster.node(2).request("GET", "/api/addressbook", ops, null,
                Map.of("If-None-Match", etag));
        assertEquals(200, otherView.statusCode(), "another audience was told its view had not changed");
        assertTrue(!otherView.headers().firstValue("ETag").orElseThrow().equals(etag));

        assertEquals(200, cluster.node(2).request("PUT", "/api/addressbook/folders/shared/dev", TestNode.ADMIN,
                "{\"description\":\"changed\",\"allowed_groups\":[\"dev\"]}").statusCode());
        HttpResponse<String> changed = cluster.node(1).request("GET", "/api/addressbook", TestNode.ADMIN, null,
                Map.of("If-None-Match", etag));
        assertEquals(200, changed.statusCode(), "a changed book was answered 304");
        assertTrue(changed.body().contains("changed"), changed::body);
    }

    /**
     * A browser says it takes gzip and gets the book compressed (a tenth of a real one, under half of this small one),
     * the same book, under a validator of its own; a client that does not, or refuses gzip with q=0, gets it plain.
     */
    @Test
    void theBookGoesGzippedToWhoeverTakesGzip() throws Exception {
        HttpResponse<String> plain = cluster.node(1).request("GET", "/api/addressbook", TestNode.ADMIN, null);
        HttpResponse<byte[]> zipped = bookAsking("br, gzip;q=0.8", null);
        assertEquals(200, zipped.statusCode());
        assertEquals("gzip", zipped.headers().firstValue("Content-Encoding").orElse("none"));
        assertEquals("Accept-Encoding", zipped.headers().firstValue("Vary").orElse("none"));
        byte[] unzipped = new GZIPInputStream(new ByteArrayInputStream(zipped.body())).readAllBytes();
        assertEquals(TestNode.json(plain), Json.mapper().readTree(unzipped));
        assertTrue(zipped.body().length < unzipped.length / 2, zipped.body().length + " of " + unzipped.length);
        String gzipTag = zipped.headers().firstValue("ETag").orElseThrow();
        assertTrue(!gzipTag.equals(plain.headers().firstValue("ETag").orElseThrow()), gzipTag);
        assertEquals(304, bookAsking("gzip", gzipTag).statusCode());
        for (String refused : List.of("identity", "gzip;q=0", "gzip; q=0.0")) {
            HttpResponse<byte[]> response = bookAsking(refused, null);
            assertTrue(response.headers().firstValue("Content-Encoding").isEmpty(), refused);
            assertEquals(TestNode.json(plain), Json.mapper().readTree(response.body()), refused);
        }
    }

    private static HttpResponse<byte[]> bookAsking(String encodings, String etag) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cluster.node(2).port()
                + "/api/addressbook")).header("Authorization", "Bearer " + TestNode.ADMIN)
                .header("Accept-Encoding", encodings);
        if (etag != null) {
            request.header("If-None-Match", etag);
        }
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    @Test
    void adminsWriteThroughToVaultAndEveryNodeSeesIt() throws Exception {
        TestNode one = cluster.node(1);
        assertEquals(201, one.request("POST", "/api/addressbook/folders", TestNode.ADMIN,
                "{\"path\":\"lab\",\"description\":\"Lab\",\"allowed_groups\":[\"ops\"]}").statusCode());
        HttpResponse<String> entry = one.request("POST", "/api/addressbook/folders/shared/lab/entries", TestNode.ADMIN,
                "{\"name\":\"sw-1\",\"type\":\"ssh\",\"hostname\":\"127.0.0.1\",\"username\":\"a\",\"password\":\"p1\"}");
        assertEquals(201, entry.statusCode(), entry.body());
        assertTrue(paths(book(cluster.node(2), ops)).contains("lab"), "the other node sees the write at once");
        assertEquals("p1", vault.get("rustguac/shared/lab/sw-1").getString("password"));
        assertEquals(1, vault.get("rustguac/shared/lab/.config").getJsonArray("allowed_groups").size());

        assertEquals(200, cluster.node(2).request("PUT", "/api/addressbook/folders/shared/lab/entries/sw-1",
                TestNode.ADMIN, "{\"type\":\"ssh\",\"hostname\":\"127.0.0.2\",\"username\":\"b\"}").statusCode());
        JsonObject stored = vault.get("rustguac/shared/lab/sw-1");
        assertEquals("127.0.0.2", stored.getString("hostname"));
        assertEquals("p1", stored.getString("password"), "an update without the password keeps it");

        assertEquals(204, one.request("DELETE", "/api/addressbook/folders/shared/lab/entries/sw-1", TestNode.ADMIN,
                null).statusCode());
        assertEquals(404, one.request("DELETE", "/api/addressbook/folders/shared/lab/entries/sw-1", TestNode.ADMIN,
                null).statusCode());
        HttpResponse<String> deleted = one.request("DELETE", "/api/addressbook/folders/shared/lab", TestNode.ADMIN,
                null);
        assertEquals(200, deleted.statusCode(), deleted.body());
        assertFalse(paths(book(cluster.node(2), TestNode.ADMIN)).contains("lab"));
        assertEquals(403, one.request("POST", "/api/addressbook/folders", ops, "{\"path\":\"x\"}").statusCode());
    }

    /**
     * A folder's {@code enable_recording} (in its {@code .config}, as an entry's) holds for its entries and for the
     * subfolders below it; an entry's own word wins. This gateway keeps no recordings, so a session that must be
     * recorded is refused, naming the folder.
     */
    @Test
    void aFolderThatMustBeRecordedSaysSoForTheEntriesBelowIt() throws Exception {
        TestNode one = cluster.node(1);
        assertEquals(201, one.request("POST", "/api/addressbook/folders", TestNode.ADMIN,
                "{\"path\":\"audited\",\"allowed_groups\":[\"ops\"],\"enable_recording\":true}").statusCode());
        assertTrue(vault.get("rustguac/shared/audited/.config").getBoolean("enable_recording"));
        assertEquals(201, one.request("POST", "/api/addressbook/folders", TestNode.ADMIN,
                "{\"path\":\"audited/inner\",\"inherit_from_parent\":true}").statusCode());
        for (String entry : List.of("{\"name\":\"box\",\"type\":\"ssh\",\"hostname\":\"127.0.0.1\"}",
                "{\"name\":\"free\",\"type\":\"ssh\",\"hostname\":\"127.0.0.1\",\"enable_recording\":false}")) {
            assertEquals(201, one.request("POST", "/api/addressbook/folders/shared/audited%2Finner/entries",
                    TestNode.ADMIN, entry).statusCode());
        }
        HttpResponse<String> refused = one.request("POST",
                "/api/addressbook/folders/shared/audited%2Finner/entries/box/connect", ops, "{}");
        assertEquals(409, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("folder must be recorded"), refused.body());
        HttpResponse<String> free = one.request("POST",
                "/api/addressbook/folders/shared/audited%2Finner/entries/free/connect", ops, "{}");
        assertEquals(201, free.statusCode(), "the entry's own word wins: " + free.body());
        SessionInfo session = Json.mapper().readValue(free.body(), SessionInfo.class);
        assertEquals(204, one.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                .statusCode());
        assertEquals(400, one.request("POST", "/api/addressbook/folders", TestNode.ADMIN,
                "{\"path\":\"odd\",\"enable_recording\":\"yes\"}").statusCode());
        for (String folder : List.of("audited/inner", "audited")) {
            assertEquals(200, one.request("DELETE", "/api/addressbook/folders/shared/" + folder.replace("/", "%2F"), TestNode.ADMIN, null)
                    .statusCode());
        }
    }

    @Test
    void entriesWrittenWrongAreABadRequestNamingTheField() throws Exception {
        // Each was a 500 on connect. A Vault of their own, so that the other tests' book stays as it is.
        SyntheticVault odd = SyntheticVault.start(vertx, "secret", ROOT).await(10, TimeUnit.SECONDS);
        String base = "rustguac/shared/";
        odd.put(base + "odd/bad-port", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1")
                .put("port", "twenty-two"));
        odd.put(base + "odd/bad-type", new JsonObject().put("type", "telnet").put("hostname", "127.0.0.1"));
        odd.put(base + "odd/bad-host", new JsonObject().put("type", "ssh").put("hostname", "999.0.0.1"));
        odd.put(base + "odd/stored", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1")
                .put("username", "deploy").put("password", "the-stored-pw").put("pwd", "pwd-value")
                .put("api_key", "api-key-value").put("otp", "otp-value").put("ssh_key", "ssh-key-value"));
        try (TestNode node = TestNode.start(new org.farmgate.testkit.guacd.SyntheticGuacdOptions(), Map.of(
                "GW_CLUSTER_ENABLED", "false", "VAULT_ADDR", odd.address(), "VAULT_TOKEN", ROOT))) {
            for (String[] entry : new String[][] {{"bad-port", "port must be a number from 1 to 65535, got 'twenty-two'"},
                {"bad-type", "unknown type 'telnet'"}, {"bad-host", "'999.0.0.1' is not a valid IPv4 address"}}) {
                HttpResponse<String> answer = node.request("POST", "/api/addressbook/folders/shared/odd/entries/"
                        + entry[0] + "/connect", TestNode.ADMIN, null);
                assertEquals(400, answer.statusCode(), entry[0] + ": " + answer.body());
                assertTrue(answer.body().contains(entry[1]), answer.body());
            }
            // Credentials by an allow-list: no field that is not known to be public is shown.
            String listed = node.request("GET", "/api/addressbook", TestNode.ADMIN, null).body();
            for (String secret : List.of("the-stored-pw", "pwd-value", "api-key-value", "otp-value", "ssh-key-value")) {
                assertFalse(listed.contains(secret), secret + " shown in " + listed);
            }
            assertTrue(listed.contains("\"has_credentials\":true"), listed);
            // The stored password never logs in under a name the caller chose.
            HttpResponse<String> borrowed = node.request("POST",
                    "/api/addressbook/folders/shared/odd/entries/stored/connect", TestNode.ADMIN,
                    "{\"username\":\"mallory\"}");
            assertEquals(400, borrowed.statusCode(), borrowed.body());
            assertTrue(borrowed.body().contains("stores its own credentials"), borrowed.body());
            node.assertNothingLeaks();
        } finally {
            odd.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void deletingAFolderCannotWaitOnItsOwnPool() throws Exception {
        // One Vault call at a time: the delete fans out to every secret of the folder through that one thread.
        String base = "rustguac/shared/narrow/";
        vault.put(base + "a", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1"));
        vault.put(base + "b", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1"));
        vault.put(base + "deeper/c", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1"));
        try (TestNode narrow = TestNode.start(new org.farmgate.testkit.guacd.SyntheticGuacdOptions(), Map.of(
                "GW_CLUSTER_ENABLED", "false", "VAULT_ADDR", vault.address(), "VAULT_TOKEN", ROOT,
                "GW_VAULT_PARALLELISM", "1"))) {
            HttpResponse<String> deleted = narrow.request("DELETE", "/api/addressbook/folders/shared/narrow",
                    TestNode.ADMIN, null);
            assertEquals(200, deleted.statusCode(), deleted.body());
            assertTrue(deleted.body().contains("3"), deleted.body());
            assertEquals(null, vault.get(base + "deeper/c"));
        }
    }

    @Test
    void namesAreCheckedAsRustguacChecksThem() throws Exception {
        TestNode one = cluster.node(1);
        for (String bad : List.of("..", ".config", "a b", "x".repeat(65))) {
            HttpResponse<String> response = one.request("POST", "/api/addressbook/folders/shared/ops/entries",
                    TestNode.ADMIN, "{\"name\":\"" + bad + "\",\"type\":\"ssh\",\"hostname\":\"h\"}");
            assertEquals(400, response.statusCode(), bad + ": " + response.body());
        }
        assertEquals(400, one.request("POST", "/api/addressbook/folders", TestNode.ADMIN, "{\"path\":\"a/../b\"}")
                .statusCode());
        assertEquals(400, one.request("POST", "/api/addressbook/folders/shared/ops/entries", TestNode.ADMIN,
                "{\"name\":\"ok\",\"type\":\"telnet\",\"hostname\":\"h\"}").statusCode());
        assertEquals(400, one.request("PUT", "/api/addressbook/folders/private/ops", TestNode.ADMIN, "{}")
                .statusCode());
    }

    /** A display name that reads as another ("web", U+202E, "1-bd" shows as "webdb-1") is not what people are shown. */
    @Test
    void whatOthersAreShownHoldsNoDirectionOrFormatCharacters() throws Exception {
        TestNode one = cluster.node(1);
        for (String hidden : List.of("\\u202E", "\\u2066", "\\u200B", "\\u0007", "\\u2028")) {
            HttpResponse<String> entry = one.request("POST", "/api/addressbook/folders/shared/ops/entries",
                    TestNode.ADMIN, "{\"name\":\"shown\",\"type\":\"ssh\",\"hostname\":\"h\",\"display_name\":\"web"
                            + hidden + "1-bd\"}");
            assertEquals(400, entry.statusCode(), hidden + ": " + entry.body());
            assertTrue(TestNode.json(entry).get("error").asText()
                    .startsWith("field 'display_name' must not contain U+"), entry.body());
            HttpResponse<String> folder = one.request("POST", "/api/addressbook/folders", TestNode.ADMIN,
                    "{\"path\":\"shown\",\"description\":\"a" + hidden + "b\"}");
            assertEquals(400, folder.statusCode(), hidden + ": " + folder.body());
        }
        String book = one.request("GET", "/api/addressbook", TestNode.ADMIN, null).body();
        assertFalse(book.contains("\"name\":\"shown\""), "nothing was written: " + book);
    }

    @Test
    void connectReadsTheCredentialsFromVaultOnTheNodeThatRunsTheSession() throws Exception {
        HttpResponse<String> created = cluster.node(1).request("POST",
                "/api/addressbook/folders/shared/ops/entries/web-1/connect", ops, "{\"width\":1280,\"height\":720}");
        assertEquals(201, created.statusCode(), created.body());
        assertFalse(created.body().contains("from-vault-pw"));
        SessionInfo session = Json.mapper().readValue(created.body(), SessionInfo.class);
        assertEquals("node-2", session.nodeId());
        assertEquals("deploy", session.username());
        String ticket = cluster.node(1).ticket(ops);
        try (WsClient ws = cluster.node(1).connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
            ws.awaitInstruction("sync");
            Map<String, String> values = cluster.node(2).guacd.lastSession().connectValues();
            assertEquals("from-vault-pw", values.get("password"), "guacd got Vault's password");
            assertEquals("deploy", values.get("username"));
        }
        assertEquals(404, cluster.node(1).request("POST", "/api/addressbook/folders/shared/dev/entries/box/connect",
                ops, "{}").statusCode(), "a folder the caller may not see does not exist for it");
        assertEquals(400, cluster.node(1).request("POST", "/api/addressbook/folders/shared/ops/entries/web-1/connect",
                ops, "{\"hostname\":\"10.0.0.1\"}").statusCode(), "the target comes from the book, not the caller");
    }

    @Test
    void aVaultThatGoesDownLeavesTheLastGoodCopyServed() throws Exception {
        book(cluster.node(1), TestNode.ADMIN);
        vault.failWith(503);
        try {
            HttpResponse<String> write = cluster.node(2).request("POST", "/api/addressbook/folders", TestNode.ADMIN,
                    "{\"path\":\"down\"}");
            assertEquals(503, write.statusCode(), write.body());
            assertTrue(TestNode.json(write).get("error").asText().contains("Vault"));
            JsonNode stale = book(cluster.node(2), TestNode.ADMIN);
            assertTrue(stale.get("stale").asBoolean(), stale.toString());
            assertTrue(stale.get("error").asText().contains("503"));
            assertEquals(4, stale.get("folders").size(), "the last good copy");
            JsonNode ready = TestNode.json(cluster.node(2).request("GET", "/api/ready", null, null));
            assertTrue(ready.get("checks").get("addressbook").get("detail").asText().contains("refresh failed"));
        } finally {
            vault.failWith(0);
        }
        assertEquals(201, cluster.node(2).request("POST", "/api/addressbook/folders", TestNode.ADMIN,
                "{\"path\":\"up-again\"}").statusCode());
        assertFalse(book(cluster.node(1), TestNode.ADMIN).get("stale").asBoolean());
        cluster.node(1).request("DELETE", "/api/addressbook/folders/shared/up-again", TestNode.ADMIN, null);
    }
}
