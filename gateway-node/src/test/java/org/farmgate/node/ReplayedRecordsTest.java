package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.LoginSessions;
import org.farmgate.node.auth.Secrets;
import org.farmgate.node.runtime.ClusterMaps;
import org.farmgate.router.seal.Fences;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.vault.SyntheticVault;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The attacker, each kind of record: a member process without the cluster key (or a node certificate)
 * copies a record as it lies in the shared map, waits for the change that takes access away, and puts the copy back.
 * Nothing it puts back is believed, on either node. The member is a lite one (it owns no partition) so that the
 * honest nodes own every entry it writes into: the replay is then the one the seal alone would have let through.
 */
@org.junit.jupiter.api.TestMethodOrder(org.junit.jupiter.api.MethodOrderer.OrderAnnotation.class)
class ReplayedRecordsTest {

    private static final String ROOT = "vault-root-token";
    private static Vertx vertx;
    private static SyntheticVault vault;
    private static TestCluster cluster;
    private static KeylessMember stranger;

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        vault = SyntheticVault.start(vertx, "secret", ROOT).await(10, TimeUnit.SECONDS);
        vault.put("rustguac/shared/lab/.config", new JsonObject()
                .put("allowed_groups", new JsonArray().add("ops").add("dev")).put("description", "Lab"));
        vault.put("rustguac/shared/lab/box", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1"));
        cluster = TestCluster.start(2, n -> Map.of("GW_CLUSTER_EXPEL_STRANGERS", "false",
                "GW_MAX_SESSIONS_PER_USER", "2", "GW_MEMORY_BUDGET_MB", "5000", "VAULT_ADDR", vault.address(),
                "VAULT_TOKEN", ROOT, "GW_ADDRESSBOOK_TTL_SECS", "3600"));
        stranger = KeylessMember.start(cluster.node(1).node.config().cluster().name(), "127.0.0.1:"
                + cluster.node(1).node.config().cluster().port(), true,
                Files.createTempFile("farmgate-keyless-member", ".log"));
        TestNode.await(() -> cluster.node(1).node.runtime().membership().memberIds().size() == 3,
                "the keyless member did not join");
    }

    @AfterAll
    static void stop() throws Exception {
        if (stranger != null) {
            stranger.close();
        }
        if (cluster != null) {
            cluster.close();
        }
        vault.close().await(10, TimeUnit.SECONDS);
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    @Test
    void aRevokedTokenPutBackAuthenticatesNowhere() throws Exception {
        String token = revokedAndPutBack("replayed-admin", cluster.node(2));
        for (TestNode node : cluster.nodes) {
            assertEquals(401, node.request("GET", "/api/sessions", token, null).statusCode());
        }
        assertTrue(metrics().contains("farmgate_shared_records_rejected_total{map=\"farmgate.tokens\","
                + "reason=\"replayed\"}"));
    }

    /**
     * A ticket is held by the node that issued it, not in a cluster map: the stranger finds no copy to take. Handed
     * to the other node, it is spent by asking its issuer, and that node relays with a relay ticket of its own, which
     * the holding node spends by asking back; spent, it opens nothing again on either node.
     */
    @Test
    void aTicketLeavesNoRecordToPutBackAndOpensOnce() throws Exception {
        SessionInfo session = cluster.node(1).createSession(cluster.node(1).createToken("ticket-user", "poweruser"),
                ssh());
        Map<String, Set<String>> before = everyMapsKeys();
        String ticket = cluster.node(1).ticket(TestNode.ADMIN);
        try (WsClient used = cluster.node(2).connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
            used.awaitInstruction("sync");
            Map<String, Set<String>> after = everyMapsKeys();
            for (Map.Entry<String, Set<String>> map : after.entrySet()) {
                Set<String> added = new HashSet<>(map.getValue());
                added.removeAll(before.get(map.getKey()));
                assertEquals(Set.of(), added, "a ticket or relay ticket written into " + map.getKey());
            }
        }
        String ghost = "wst_" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                "no-such-node".getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "." + "0".repeat(64);
        for (TestNode node : cluster.nodes) {
            try (WsClient again = node.connectRaw(session.wsUrl() + "?ticket=" + ticket, null)) {
                assertEquals("769", again.awaitInstruction("error").arg(1), "the spent ticket worked again");
            }
            try (WsClient forged = node.connectRaw(session.wsUrl() + "?ticket=" + ghost, null)) {
                assertEquals("769", forged.awaitInstruction("error").arg(1), "a ticket naming no node");
            }
        }
        deleteSession(session);
    }

    /** Every cluster map's keys, as the stranger on the cluster network sees them. */
    private static Map<String, Set<String>> everyMapsKeys() throws Exception {
        Map<String, Set<String>> keys = new java.util.TreeMap<>();
        for (java.lang.reflect.Field field : ClusterMaps.class.getFields()) {
            if (field.get(null) instanceof ClusterMaps.ClusterMap<?> map) {
                keys.put(map.name(), stranger.keys(map.name()));
            }
        }
        assertTrue(keys.size() > 10, "the cluster's maps: " + keys.keySet());
        return keys;
    }

    @Test
    void aRevokedShareLinkPutBackIsTradedForNothing() throws Exception {
        SessionInfo session = cluster.node(1).createSession(cluster.node(1).createToken("share-user", "poweruser"),
                ssh());
        Set<String> before = stranger.keys(ClusterMaps.SHARES.name());
        HttpResponse<String> created = cluster.node(1).request("POST", "/api/sessions/" + session.sessionId()
                + "/shares", TestNode.ADMIN, "{\"mode\":\"collaborative\"}");
        assertEquals(201, created.statusCode(), created.body());
        JsonNode share = TestNode.json(created);
        String key = added(before, stranger.keys(ClusterMaps.SHARES.name()));
        assertTrue(stranger.capture(ClusterMaps.SHARES.name(), key));
        String trade = "{\"share\":\"" + share.get("share_token").asText() + "\"}";
        assertEquals(200, cluster.node(2).request("POST", "/api/share-ticket", null, trade).statusCode());
        assertEquals(204, cluster.node(2).request("DELETE", "/api/sessions/" + session.sessionId() + "/shares/"
                + share.get("share_id").asText(), TestNode.ADMIN, null).statusCode());
        replayOnceEveryNodeKnows(ClusterMaps.SHARES.name(), key);
        for (TestNode node : cluster.nodes) {
            HttpResponse<String> traded = node.request("POST", "/api/share-ticket", null, trade);
            assertNotEquals(200, traded.statusCode(), traded.body());
        }
        deleteSession(session);
    }

    @Test
    void aLoginPutBackAfterSigningOutSignsNobodyIn() throws Exception {
        LoginSessions logins = new LoginSessions(cluster.node(1).node.runtime().logins(), Duration.ofHours(1),
                Duration.ofHours(8), Clock.systemUTC());
        Set<String> before = stranger.keys(ClusterMaps.LOGINS.name());
        String secret = logins.start(new Identity("oidc:carol", "carol", Role.ADMIN, Set.of(), null, null))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        String key = added(before, stranger.keys(ClusterMaps.LOGINS.name()));
        assertTrue(stranger.capture(ClusterMaps.LOGINS.name(), key));
        assertEquals(200, withCookie(cluster.node(2), secret).statusCode());
        logins.end(secret).toCompletableFuture().get(10, TimeUnit.SECONDS);
        replayOnceEveryNodeKnows(ClusterMaps.LOGINS.name(), key);
        for (TestNode node : cluster.nodes) {
            assertEquals(401, withCookie(node, secret).statusCode());
        }
    }

    /**
     * A user at their limit of two sessions: the copy of their places from when they held one, put back, or their
     * entry deleted, does not let them create a third; the entry is written again from the sessions they hold.
     */
    @Test
    void aQuotaEntryPutBackOrDeletedGrantsNoPlace() throws Exception {
        String dave = cluster.node(1).createToken("dave", "poweruser");
        Set<String> before = stranger.keys(ClusterMaps.USER_SESSIONS.name());
        List<SessionInfo> held = new ArrayList<>();
        held.add(cluster.node(1).createSession(dave, ssh()));
        String key = added(before, stranger.keys(ClusterMaps.USER_SESSIONS.name()));
        assertTrue(stranger.capture(ClusterMaps.USER_SESSIONS.name(), key));
        held.add(cluster.node(2).createSession(dave, ssh()));
        assertEquals(429, create(cluster.node(1), dave).statusCode(), "at the limit");

        replayOnceEveryNodeKnows(ClusterMaps.USER_SESSIONS.name(), key);
        for (int attempt = 0; attempt < 3; attempt++) {
            for (TestNode node : cluster.nodes) {
                HttpResponse<String> third = create(node, dave);
                assertTrue(third.statusCode() == 503 || third.statusCode() == 429, third.statusCode() + " "
                        + third.body());
            }
        }
        TestNode.await(() -> status(() -> create(cluster.node(2), dave)) == 429, "the quota entry was not written again");

        stranger.delete(ClusterMaps.USER_SESSIONS.name(), key);
        for (TestNode node : cluster.nodes) {
            assertNotEquals(201, create(node, dave).statusCode(), "a deleted entry granted a place");
        }
        TestNode.await(() -> status(() -> create(cluster.node(1), dave)) == 429, "the quota entry was not written again");
        for (SessionInfo session : held) {
            deleteSession(session);
        }
    }

    /** The copy of node 2's registry entry from before its drain places nothing on it, and undrains nothing. */
    @Test
    void aRegistryEntryPutBackFromBeforeADrainPlacesNothing() throws Exception {
        assertTrue(stranger.capture(ClusterMaps.NODES.name(), "node-2"));
        assertEquals(200, cluster.node(1).request("POST", "/api/cluster/nodes/node-2/drain", TestNode.ADMIN, null)
                .statusCode());
        try {
            replayOnceEveryNodeKnows(ClusterMaps.NODES.name(), "node-2");
            String erin = cluster.node(1).createToken("erin", "poweruser");
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            List<SessionInfo> created = new ArrayList<>();
            for (int round = 0; round == 0 || System.nanoTime() < until; round++) {
                stranger.replay(ClusterMaps.NODES.name(), "node-2"); // again and again, between the node's beats
                for (JsonNode node : TestNode.json(cluster.node(1).request("GET", "/api/cluster", TestNode.ADMIN,
                        null)).get("nodes")) {
                    if (node.get("node_id").asText().equals("node-2")) {
                        assertEquals("draining", node.get("state").asText(), "node 2 shown undrained: " + node);
                    }
                }
                if (round % 10 == 0 && created.size() < 2) { // within erin's two places
                    SessionInfo session = cluster.node(2).createSession(erin, ssh());
                    created.add(session);
                    assertEquals("node-1", session.nodeId(), "a session placed on the drained node");
                }
                Thread.sleep(50);
            }
            assertEquals(2, created.size());
            for (SessionInfo session : created) {
                deleteSession(session);
            }
        } finally {
            cluster.node(1).request("POST", "/api/cluster/nodes/node-2/undrain", TestNode.ADMIN, null);
        }
    }

    @Test
    void anAddressBookPutBackFromBeforeAFolderWasNarrowedShowsNothingMore() throws Exception {
        String dev = createToken("dev-user", List.of("dev"));
        assertTrue(folders(cluster.node(1), dev).contains("lab"));
        Set<String> keys = stranger.keys(ClusterMaps.ADDRESSBOOK.name());
        assertFalse(keys.isEmpty());
        for (String key : keys) {
            stranger.capture(ClusterMaps.ADDRESSBOOK.name(), key);
        }
        HttpResponse<String> narrowed = cluster.node(2).request("PUT", "/api/addressbook/folders/shared/lab",
                TestNode.ADMIN, "{\"allowed_groups\":[\"ops\"],\"description\":\"Lab\"}");
        assertEquals(200, narrowed.statusCode(), narrowed.body());
        for (TestNode node : cluster.nodes) {
            TestNode.await(() -> !folders(node, dev).contains("lab"), "the narrowed rule was not applied");
        }
        for (String key : keys) {
            replayOnceEveryNodeKnows(ClusterMaps.ADDRESSBOOK.name(), key);
        }
        for (TestNode node : cluster.nodes) {
            assertFalse(folders(node, dev).contains("lab"), "the old folder rule came back");
        }
    }

    /** A node that joins after the revocation learns of it from a peer before it serves: the copy is nothing there. */
    @Test
    @org.junit.jupiter.api.Order(Integer.MAX_VALUE)
    void aNodeThatJoinsLaterKnowsOfTheWritesBeforeIt() throws Exception {
        String token = revokedAndPutBack("before-the-join", cluster.node(1));
        String key = Secrets.sha256Hex(token);
        TestNode late = cluster.add();
        stranger.replay(ClusterMaps.TOKENS.name(), key);
        assertEquals(401, late.request("GET", "/api/sessions", token, null).statusCode());
        assertTrue(late.node.runtime().fences().floor(ClusterMaps.TOKENS.name(), key) > 0);
    }

    /** An admin token, copied by the stranger, revoked through {@code revoker}, and put back: the token. */
    private static String revokedAndPutBack(String name, TestNode revoker) throws Exception {
        String token = cluster.node(1).createToken(name, "admin");
        String key = Secrets.sha256Hex(token);
        assertTrue(stranger.capture(ClusterMaps.TOKENS.name(), key));
        assertEquals(204, revoker.request("DELETE", "/api/tokens/" + name, TestNode.ADMIN, null).statusCode());
        replayOnceEveryNodeKnows(ClusterMaps.TOKENS.name(), key);
        return token;
    }

    /** Waits until every node knows the latest write of the entry, as fences arrive within milliseconds. */
    private static void replayOnceEveryNodeKnows(String map, String key) throws Exception {
        TestNode.await(() -> {
            Set<Long> known = new HashSet<>();
            for (TestNode node : cluster.nodes) {
                Fences.Fence fence = node.node.runtime().fences().of(map, key);
                known.add(fence == null ? -1 : fence.revision());
            }
            return known.size() == 1 && !known.contains(-1L);
        }, "the nodes did not hear of the write of " + map + "/" + key);
        stranger.replay(map, key);
    }

    private static String added(Set<String> before, Set<String> after) {
        Set<String> added = new HashSet<>(after);
        added.removeAll(before);
        assertEquals(1, added.size(), "one new entry: " + added);
        return added.iterator().next();
    }

    private static String ssh() {
        return "{\"hostname\":\"127.0.0.1\",\"username\":\"bench\",\"password\":\"secret\"}";
    }

    private static HttpResponse<String> create(TestNode node, String token) throws Exception {
        return node.request("POST", "/api/sessions", token, ssh());
    }

    private static int status(java.util.concurrent.Callable<HttpResponse<String>> call) {
        try {
            return call.call().statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static void deleteSession(SessionInfo session) throws Exception {
        cluster.node(1).request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null);
    }

    private static String createToken(String name, List<String> groups) throws Exception {
        HttpResponse<String> created = cluster.node(1).request("POST", "/api/tokens", TestNode.ADMIN,
                new JsonObject().put("name", name).put("role", "operator").put("groups", new JsonArray(groups))
                        .encode());
        assertEquals(201, created.statusCode(), created.body());
        return TestNode.json(created).get("token").asText();
    }

    private static List<String> folders(TestNode node, String token) {
        try {
            HttpResponse<String> book = node.request("GET", "/api/addressbook", token, null);
            assertEquals(200, book.statusCode(), book.body());
            return TestNode.json(book).get("folders").findValuesAsText("path");
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static HttpResponse<String> withCookie(TestNode node, String secret) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port()
                        + "/api/me")).header("Cookie", LoginSessions.COOKIE + "=" + secret).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String metrics() throws Exception {
        StringBuilder all = new StringBuilder();
        for (TestNode node : cluster.nodes) {
            all.append(node.request("GET", "/metrics", null, null).body());
        }
        return all.toString();
    }
}
