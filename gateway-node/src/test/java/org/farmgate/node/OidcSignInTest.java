package org.farmgate.node;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.CookieManager;
import java.nio.file.Path;
import java.net.CookiePolicy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.farmgate.model.Json;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.browser.HeadlessChromium;
import org.farmgate.testkit.db.TestPostgres;
import org.farmgate.testkit.vault.SyntheticVault;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Sign-in against a real Keycloak with the realm in deploy/keycloak: alice is in farm-admins (admin),
 * bob in farm-operators (operator), carol only in contractors, which maps to nothing. The nodes send people back to
 * node 2 (GW_OIDC_REDIRECT_BASE), so every sign-in that starts on node 1 completes on another node. Most checks
 * script the browser's part with an HTTP client that keeps cookies (the provider's login form is posted as a browser
 * posts it); the page test drives Chromium through Keycloak's own login page.
 */
class OidcSignInTest {

    private static KeycloakServer keycloak;
    private static TestCluster cluster;
    private static final int[] PORTS = new int[2];
    /** The cluster's database, where a PostgreSQL runs: what people and mappings are kept in. */
    private static String database;
    /** The address book, with an entry whose login is each person's own (credential variables). */
    private static io.vertx.core.Vertx vaultVertx;
    private static SyntheticVault vault;

    @BeforeAll
    static void start() throws Exception {
        Optional<String> missing = KeycloakServer.unavailable();
        assumeTrue(missing.isEmpty(), () -> "no real identity provider here: " + missing.orElse(""));
        keycloak = new KeycloakServer();
        PORTS[0] = TestNode.freePort();
        PORTS[1] = TestNode.freePort();
        database = TestPostgres.shared().map(TestPostgres::newDatabase).orElse(null);
        vaultVertx = io.vertx.core.Vertx.vertx();
        vault = SyntheticVault.start(vaultVertx, "secret", "vault-root").await(10, TimeUnit.SECONDS);
        vault.put("rustguac/shared/corp/.config", new JsonObject().put("allowed_groups", new JsonArray()));
        vault.put("rustguac/shared/corp/box", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1")
                .put("username", "$corp_username").put("password", "$corp_password"));
        vault.put("rustguac/shared/corp/page-box", new JsonObject().put("type", "ssh").put("hostname", "127.0.0.1")
                .put("username", "$page_username").put("password", "$page_password"));
        cluster = startCluster();
    }

    private static TestCluster startCluster() throws Exception {
        return TestCluster.start(2, n -> {
            Map<String, String> values = settings(PORTS[n - 1], PORTS[1]);
            if (database != null) {
                values.put("GW_DB_URL", database.substring("jdbc:".length()));
                values.put("GW_DB_USER", TestPostgres.shared().get().user());
            }
            values.put("VAULT_ADDR", vault.address());
            values.put("VAULT_TOKEN", "vault-root");
            return values;
        });
    }

    static Map<String, String> settings(int port, int redirectPort) {
        Map<String, String> values = new HashMap<>();
        values.put("GW_HTTP_PORT", String.valueOf(port));
        values.put("GW_OIDC_ISSUER", keycloak.issuer());
        values.put("GW_OIDC_CLIENT_ID", "farmgate");
        values.put("GW_OIDC_CLIENT_SECRET", "farmgate-test-secret");
        values.put("GW_OIDC_REDIRECT_BASE", "http://127.0.0.1:" + redirectPort);
        values.put("GW_OIDC_ROLE_MAPPINGS", "farm-admins=admin,farm-operators=operator");
        return values;
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (keycloak != null) {
            keycloak.close();
        }
        if (vaultVertx != null) {
            vaultVertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Credential variables: an entry logs in as {@code $corp_username}/{@code $corp_password}; each person keeps
     * their own values (in Vault, at rustguac's path), is told exactly which are missing, reads back only whether a
     * secret is set, and connects under their own account; another person, an admin included, sees none of them.
     */
    @Test
    void eachPersonConnectsWithTheirOwnCredentialVariables() throws Exception {
        Browser alice = new Browser();
        alice.get(alice.signInAtProvider(node(1), "alice", "alice-pass"));
        String connect = node(1) + "/api/addressbook/folders/shared/corp/entries/box/connect";
        HttpResponse<String> missing = alice.post(connect, "{}", alice.csrf(node(1)));
        assertEquals(412, missing.statusCode(), missing::body);
        assertEquals("[\"corp_username\",\"corp_password\"]", alice.json(missing).get("missing_variables")
                .toString());
        HttpResponse<String> token = cluster.node(1).request("POST",
                "/api/addressbook/folders/shared/corp/entries/box/connect", TestNode.ADMIN, "{}");
        assertEquals(412, token.statusCode(), token::body);
        assertTrue(token.body().contains("sign in as a person"), token::body);
        assertEquals(401, cluster.node(1).request("GET", "/api/me/credentials", TestNode.ADMIN, null).statusCode());

        HttpResponse<String> badName = alice.put(node(2) + "/api/me/credentials",
                "{\"credentials\":{\"Corp/../x\":\"v\"}}", alice.csrf(node(2)));
        assertEquals(400, badName.statusCode(), badName::body);
        assertTrue(badName.body().contains("invalid variable name"), badName::body);
        HttpResponse<String> saved = alice.put(node(2) + "/api/me/credentials",
                "{\"credentials\":{\"corp_username\":\"alice-ssh\",\"corp_password\":\"Al1ce-s3cret\"}}",
                alice.csrf(node(2)));
        assertEquals(200, saved.statusCode(), saved::body);
        assertEquals("Al1ce-s3cret", vault.get("rustguac/users/alice_at_farm.example").getString("corp_password"),
                "kept at rustguac's path");
        HttpResponse<String> kept = alice.put(node(1) + "/api/me/credentials",
                "{\"credentials\":{\"corp_password\":\"\"}}", alice.csrf(node(1)));
        assertEquals(200, kept.statusCode(), kept::body);
        JsonNode mine = alice.json(alice.get(node(1) + "/api/me/credentials")).get("credentials");
        assertEquals("alice-ssh", mine.get("corp_username").get("display").asText());
        assertTrue(mine.get("corp_password").get("set").asBoolean(), "a blank value keeps the stored one");
        assertEquals("••••••••", mine.get("corp_password").get("display").asText());
        assertTrue(!mine.toString().contains("Al1ce-s3cret"), "a secret reached the browser again");

        Browser bob = new Browser();
        bob.get(bob.signInAtProvider(node(2), "bob", "bob-pass"));
        assertEquals("{}", bob.json(bob.get(node(2) + "/api/me/credentials")).get("credentials").toString(),
                "another person reads someone's variables");

        HttpResponse<String> created = alice.post(connect, "{}", alice.csrf(node(1)));
        assertEquals(201, created.statusCode(), created::body);
        SessionInfo session = Json.mapper().readValue(created.body(), SessionInfo.class);
        assertTrue(!created.body().contains("Al1ce-s3cret"));
        java.net.http.WebSocket ws = alice.webSocket(node(1).replace("http:", "ws:") + session.wsUrl(), node(1));
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.nodes.stream().flatMap(n -> n.guacd
                .connections().stream()).anyMatch(c -> "alice-ssh".equals(c.connectValues().get("username"))
                && "Al1ce-s3cret".equals(c.connectValues().get("password"))));
        assertTrue(!cluster.node(2).request("GET", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null)
                .body().contains("Al1ce-s3cret"));
        ws.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "").join();
        cluster.node(1).request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null);

        HttpResponse<String> removed = alice.delete(node(2) + "/api/me/credentials/corp_password",
                alice.csrf(node(2)));
        assertEquals(204, removed.statusCode(), removed::body);
        HttpResponse<String> again = alice.post(connect, "{}", alice.csrf(node(1)));
        assertEquals(412, again.statusCode(), again::body);
        assertEquals("[\"corp_password\"]", alice.json(again).get("missing_variables").toString(),
                "only what is missing is asked for");
    }

    @Test
    void aSignInStartedOnOneNodeCompletesOnAnotherAndWorksOnEvery() throws Exception {
        Browser alice = new Browser();
        String callback = alice.signInAtProvider(node(1), "alice", "alice-pass");
        assertTrue(callback.startsWith(node(2) + "/auth/callback?"), callback);
        HttpResponse<String> landed = alice.get(callback);
        assertEquals(302, landed.statusCode(), landed::body);
        assertEquals("/", landed.headers().firstValue("Location").orElseThrow());
        String cookie = landed.headers().allValues("Set-Cookie").stream().filter(c -> c.startsWith("farmgate_login="))
                .findFirst().orElseThrow();
        assertTrue(cookie.toLowerCase().contains("httponly") && cookie.contains("SameSite=Lax")
                && !cookie.toLowerCase().contains("secure"), cookie);

        for (int n = 1; n <= 2; n++) {
            JsonNode me = alice.json(alice.get(node(n) + "/api/me"));
            assertEquals("alice", me.get("name").asText());
            assertEquals("admin", me.get("role").asText());
            assertEquals("alice@farm.example", me.get("email").asText());
            assertEquals("oidc", me.get("signed_in_with").asText());
            assertTrue(me.get("id").asText().startsWith("oidc:"));
        }
        HttpResponse<String> created = alice.post(node(1) + "/api/sessions",
                "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\"}", alice.csrf(node(1)));
        assertEquals(201, created.statusCode(), created::body);
        SessionInfo session = Json.mapper().readValue(created.body(), SessionInfo.class);
        assertEquals("alice", session.createdBy());
        assertEquals("alice@farm.example", session.createdByEmail());
        assertEquals(alice.json(alice.get(node(1) + "/api/me")).get("id").asText(), session.ownerId());
        assertEquals(alice.csrf(node(2)), alice.csrf(node(1)), "one login, valid on every node");

        HttpResponse<String> replayed = alice.get(callback);
        assertEquals(400, replayed.statusCode(), "a callback replayed (same code, same state) was accepted");
        assertTrue(replayed.body().contains("already used"), replayed.body());

        HttpResponse<String> out = alice.post(node(1) + "/auth/logout", "", alice.csrf(node(1)));
        String logoutUrl = alice.json(out).get("logout_url").asText();
        assertTrue(logoutUrl.startsWith(keycloak.issuer() + "/protocol/openid-connect/logout?client_id=farmgate"),
                logoutUrl);
        for (int n = 1; n <= 2; n++) {
            assertEquals(401, alice.get(node(n) + "/api/me").statusCode(), "signed out, yet still in on node " + n);
        }
        assertEquals(204, cluster.node(1).request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN,
                null).statusCode());
    }

    /**
     * Login CSRF: an attacker signs in with their own account, stops before the callback, and gets the victim to open
     * it. The victim's browser did not start that sign-in: refused, nobody signed in, and the sign-in is spent.
     */
    @Test
    void aSignInCompletesOnlyInTheBrowserThatStartedIt() throws Exception {
        Browser attacker = new Browser();
        String authorize = attacker.authorizeUrl(node(1));
        String binding = attacker.lastSetCookie("farmgate_signin=");
        assertTrue(binding.contains("Path=/auth/callback") && binding.toLowerCase().contains("httponly")
                && binding.contains("SameSite=Lax") && binding.contains("Max-Age=600"), binding);
        String callback = attacker.completeAtProvider(authorize, "alice", "alice-pass");

        Browser victim = new Browser();
        HttpResponse<String> planted = victim.get(callback);
        assertEquals(400, planted.statusCode(), planted::body);
        assertTrue(planted.body().contains("started in another browser"), planted.body());
        assertTrue(planted.headers().allValues("Set-Cookie").stream().noneMatch(c -> c.startsWith("farmgate_login=")),
                "no login cookie");
        assertEquals(401, victim.get(node(1) + "/api/me").statusCode());
        assertEquals(400, attacker.get(callback).statusCode(), "the sign-in was spent by the refused callback");
    }

    @Test
    void aPersonInNoMappedGroupIsRefusedWithAPageThatSaysWhy() throws Exception {
        Browser carol = new Browser();
        HttpResponse<String> refused = carol.get(carol.signInAtProvider(node(1), "carol", "carol-pass"));
        assertEquals(403, refused.statusCode());
        assertTrue(refused.body().contains("none of your groups gives access"), refused.body());
        assertEquals(401, carol.get(node(1) + "/api/me").statusCode());
    }

    @Test
    void aForgedStateOrCodeIsRefused() throws Exception {
        Browser mallory = new Browser();
        HttpResponse<String> noSuchState = mallory.get(node(2) + "/auth/callback?state=forged&code=forged");
        assertEquals(400, noSuchState.statusCode());
        // A real state, with a code the provider never issued for it.
        String authorize = mallory.authorizeUrl(node(1));
        String state = param(authorize, "state");
        HttpResponse<String> badCode = mallory.get(node(2) + "/auth/callback?state=" + state + "&code=forged");
        assertEquals(401, badCode.statusCode(), badCode::body);
        assertTrue(authorize.contains("code_challenge_method=S256") && authorize.contains("nonce="), authorize);
        assertEquals(401, mallory.get(node(1) + "/api/me").statusCode());
    }

    @Test
    void changesMadeWithTheCookieNeedTheCsrfToken() throws Exception {
        Browser alice = new Browser();
        alice.get(alice.signInAtProvider(node(1), "alice", "alice-pass"));
        String body = "{\"hostname\":\"127.0.0.1\"}";
        HttpResponse<String> crossSite = alice.post(node(1) + "/api/sessions", body, null);
        assertEquals(403, crossSite.statusCode(), crossSite::body);
        assertTrue(crossSite.body().contains("cross-site"), crossSite.body());
        assertEquals(403, alice.post(node(1) + "/api/sessions", body, "not-the-token").statusCode());
        assertEquals(403, alice.post(node(1) + "/api/ws-ticket", "", null).statusCode(),
                "a WebSocket ticket is a change too");
        assertEquals(200, alice.post(node(1) + "/api/ws-ticket", "", alice.csrf(node(1))).statusCode());
    }

    /** A WebSocket opened with the cookie from another site's page is refused before the upgrade. */
    @Test
    void aCrossSiteWebSocketWithTheCookieIsRefused() throws Exception {
        Browser alice = new Browser();
        alice.get(alice.signInAtProvider(node(1), "alice", "alice-pass"));
        HttpResponse<String> created = alice.post(node(1) + "/api/sessions", "{\"hostname\":\"127.0.0.1\"}",
                alice.csrf(node(1)));
        SessionInfo session = Json.mapper().readValue(created.body(), SessionInfo.class);
        String url = node(1).replace("http:", "ws:") + session.wsUrl();
        java.util.concurrent.CompletionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.CompletionException.class, () -> alice.webSocket(url, "https://evil.example"));
        assertTrue(refused.getCause() instanceof java.net.http.WebSocketHandshakeException handshake
                && handshake.getResponse().statusCode() == 403, refused::toString);
        java.net.http.WebSocket ours = alice.webSocket(url, node(1));
        ours.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "").join();
        assertEquals(204, alice.delete(node(1) + "/api/sessions/" + session.sessionId(), alice.csrf(node(1)))
                .statusCode());
    }

    @Test
    void aGroupChangeAtTheProviderCountsAtTheNextSignIn() throws Exception {
        Browser bob = new Browser();
        bob.get(bob.signInAtProvider(node(1), "bob", "bob-pass"));
        assertEquals("operator", bob.json(bob.get(node(1) + "/api/me")).get("role").asText());
        HttpResponse<String> tooHigh = bob.post(node(1) + "/api/me/tokens", "{\"name\":\"ci\",\"role\":\"admin\"}",
                bob.csrf(node(1)));
        assertEquals(403, tooHigh.statusCode(), "a personal token above its person's role");
        HttpResponse<String> personal = bob.post(node(1) + "/api/me/tokens", "{\"name\":\"ci\"}", bob.csrf(node(1)));
        assertEquals(201, personal.statusCode(), personal::body);
        assertEquals("bob.ci", bob.json(personal).get("name").asText());
        assertEquals("operator", bob.json(personal).get("role").asText());

        keycloak.addToGroup("bob", "farm-admins");
        Browser again = new Browser();
        again.get(again.signInAtProvider(node(1), "bob", "bob-pass"));
        assertEquals("admin", again.json(again.get(node(2) + "/api/me")).get("role").asText());

        // An admin ends all of a person's logins, on every node.
        String id = again.json(again.get(node(1) + "/api/me")).get("id").asText();
        HttpResponse<String> ended = cluster.node(2).request("DELETE", "/api/people/" + id + "/logins",
                TestNode.ADMIN, null);
        assertEquals(2, Json.mapper().readTree(ended.body()).get("ended").asInt(), ended::body);
        assertEquals(401, bob.get(node(1) + "/api/me").statusCode());
        assertEquals(401, again.get(node(2) + "/api/me").statusCode());
    }

    /**
     * An admin disables a person: their logins end on every node, their personal token is revoked, and signing in
     * again is refused with a page that says so, until an admin enables them; none of it by themselves.
     */
    @Test
    void aDisabledPersonIsOutEverywhereWithTheirTokensUntilEnabled() throws Exception {
        assumeTrue(database != null, () -> "no PostgreSQL: " + TestPostgres.whyUnavailable());
        Browser bob = new Browser();
        bob.get(bob.signInAtProvider(node(1), "bob", "bob-pass"));
        String id = bob.json(bob.get(node(1) + "/api/me")).get("id").asText();
        HttpResponse<String> personal = bob.post(node(1) + "/api/me/tokens", "{\"name\":\"laptop\"}",
                bob.csrf(node(1)));
        assertEquals(201, personal.statusCode(), personal::body);
        String token = bob.json(personal).get("token").asText();
        JsonNode row = await().atMost(Duration.ofSeconds(20)).until(() -> person(id), found -> found != null);
        assertEquals("bob@farm.example", row.get("email").asText());
        assertEquals(bob.json(bob.get(node(1) + "/api/me")).get("role").asText(), row.get("role").asText());
        assertTrue(row.get("oidc_groups").asText().contains("farm-operators"), row::toString);

        Browser alice = new Browser();
        alice.get(alice.signInAtProvider(node(1), "alice", "alice-pass"));
        String aliceId = alice.json(alice.get(node(1) + "/api/me")).get("id").asText();
        assertEquals(409, alice.post(node(1) + "/api/users/" + aliceId + "/disable", "", alice.csrf(node(1)))
                .statusCode(), "an admin disabled themselves");
        HttpResponse<String> disabled = alice.post(node(2) + "/api/users/bob@farm.example/disable", "",
                alice.csrf(node(2)));
        assertEquals(200, disabled.statusCode(), disabled::body);
        assertTrue(alice.json(disabled).get("user").get("disabled").asBoolean());
        for (int n = 1; n <= 2; n++) {
            assertEquals(401, bob.get(node(n) + "/api/me").statusCode(), "a disabled person's login on node " + n);
            assertEquals(401, cluster.node(n).request("GET", "/api/sessions", token, null).statusCode(),
                    "a disabled person's personal token on node " + n);
        }
        Browser again = new Browser();
        HttpResponse<String> refused = again.get(again.signInAtProvider(node(1), "bob", "bob-pass"));
        assertEquals(403, refused.statusCode());
        assertTrue(refused.body().contains("has disabled your access"), refused.body());

        assertEquals(200, alice.post(node(1) + "/api/users/" + id + "/enable", "", alice.csrf(node(1)))
                .statusCode());
        Browser back = new Browser();
        assertEquals(302, back.get(back.signInAtProvider(node(1), "bob", "bob-pass")).statusCode());
        assertEquals(401, cluster.node(1).request("GET", "/api/sessions", token, null).statusCode(),
                "enabling a person gives no token back");
        assertEquals(200, back.post(node(1) + "/auth/logout", "", back.csrf(node(1))).statusCode());
        // alice's refused try on herself is audited too, by another node: its row may come after bob's
        JsonNode[] audit = new JsonNode[1];
        await("bob's disabling in the audit log").atMost(10, TimeUnit.SECONDS).until(() -> {
            for (JsonNode event : TestNode.json(cluster.node(1).request("GET", "/api/audit?action=person.disable"
                    + "&outcome=success", TestNode.ADMIN, null)).get("events")) {
                if (event.get("target").asText().equals("bob@farm.example")) {
                    audit[0] = event;
                }
            }
            return audit[0] != null;
        });
        assertEquals("alice", audit[0].get("actor_name").asText());
        JsonNode refusal = TestNode.json(cluster.node(1).request("GET", "/api/audit?action=signin&outcome=refused",
                TestNode.ADMIN, null)).get("events").get(0);
        assertEquals("disabled by an admin", refusal.get("detail").asText());
    }

    /**
     * A mapping made at run time lets a group in, and a role an admin gives a person wins over their groups'; both
     * outlive every node of the cluster (put back from the database when it starts again), and both are undone.
     */
    @Test
    void mappingsAndRolesMadeAtRunTimeApplyAtOnceAndOutliveTheCluster() throws Exception {
        assumeTrue(database != null, () -> "no PostgreSQL: " + TestPostgres.whyUnavailable());
        HttpResponse<String> mapped = cluster.node(1).request("POST", "/api/admin/group-mappings", TestNode.ADMIN,
                "{\"group\":\"contractors\",\"role\":\"viewer\"}");
        assertEquals(201, mapped.statusCode(), mapped::body);
        long mappingId = TestNode.json(mapped).get("id").asLong();
        assertEquals(409, cluster.node(2).request("POST", "/api/admin/group-mappings", TestNode.ADMIN,
                "{\"group\":\"contractors\",\"role\":\"admin\"}").statusCode(), "a group mapped twice");
        try {
            Browser carol = new Browser();
            assertEquals(302, carol.get(carol.signInAtProvider(node(1), "carol", "carol-pass")).statusCode());
            assertEquals("viewer", carol.json(carol.get(node(2) + "/api/me")).get("role").asText());
            String id = carol.json(carol.get(node(1) + "/api/me")).get("id").asText();
            await().atMost(Duration.ofSeconds(20)).until(() -> person(id), found -> found != null);
            HttpResponse<String> promoted = cluster.node(2).request("PUT", "/api/users/" + id + "/role",
                    TestNode.ADMIN, "{\"role\":\"operator\"}");
            assertEquals(200, promoted.statusCode(), promoted::body);
            assertEquals(401, carol.get(node(1) + "/api/me").statusCode(), "a role change ends the person's logins");

            cluster.close();
            cluster = startCluster();

            Browser later = new Browser();
            assertEquals(302, later.get(later.signInAtProvider(node(1), "carol", "carol-pass")).statusCode());
            assertEquals("operator", later.json(later.get(node(1) + "/api/me")).get("role").asText(),
                    "the role an admin gave, after every node started again");
            assertEquals(200, cluster.node(1).request("PUT", "/api/users/" + id + "/role", TestNode.ADMIN,
                    "{\"role\":null}").statusCode());
            Browser plain = new Browser();
            plain.get(plain.signInAtProvider(node(2), "carol", "carol-pass"));
            assertEquals("viewer", plain.json(plain.get(node(2) + "/api/me")).get("role").asText(),
                    "the mapping, after every node started again");
        } finally {
            assertEquals(204, cluster.node(1).request("DELETE", "/api/admin/group-mappings/" + mappingId,
                    TestNode.ADMIN, null).statusCode());
        }
        Browser none = new Browser();
        assertEquals(403, none.get(none.signInAtProvider(node(1), "carol", "carol-pass")).statusCode(),
                "the mapping deleted");
    }

    /**
     * A quick-connect link opened with the sign-in cookie: from another site (or a browser that does not say), the
     * person is asked first, on a page whose link is of this site; from this site it opens; without a sign-in the
     * person is sent to sign in and back.
     */
    @Test
    void aQuickConnectLinkFromAnotherSiteAsksFirst() throws Exception {
        Browser alice = new Browser();
        alice.get(alice.signInAtProvider(node(1), "alice", "alice-pass"));
        String path = "/api/connect?hostname=127.0.0.1&username=u";
        for (Map<String, String> elsewhere : java.util.List.of(Map.of("Sec-Fetch-Site", "cross-site"),
                Map.<String, String>of())) {
            HttpResponse<String> asked = alice.get(node(1) + path, elsewhere);
            assertEquals(200, asked.statusCode(), asked::body);
            assertTrue(asked.body().contains("A link from another site asks to open a console to ssh://u@127.0.0.1")
                    && asked.body().contains("href=\"" + path.replace("&", "&amp;") + "\""), asked::body);
        }
        HttpResponse<String> opened = alice.get(node(1) + path, Map.of("Sec-Fetch-Site", "same-origin"));
        assertEquals(307, opened.statusCode(), opened::body);
        String id = opened.headers().firstValue("Location").orElseThrow().substring("/client/".length());
        assertEquals("alice", cluster.node(2).session(id).createdBy());
        assertEquals(204, cluster.node(1).request("DELETE", "/api/sessions/" + id, TestNode.ADMIN, null)
                .statusCode());

        HttpResponse<String> stranger = new Browser().get(node(2) + path);
        assertEquals(307, stranger.statusCode());
        assertEquals("/auth/login?return=" + java.net.URLEncoder.encode(path, java.nio.charset.StandardCharsets.UTF_8),
                stranger.headers().firstValue("Location").orElseThrow());
    }

    /** The person of that id as an admin reads them, or null while their sign-in is not written yet. */
    private static JsonNode person(String id) throws Exception {
        HttpResponse<String> response = cluster.node(2).request("GET", "/api/users/" + id, TestNode.ADMIN, null);
        return response.statusCode() == 404 ? null : TestNode.json(response);
    }

    /** A node whose clock runs two hours ahead sees the provider's fresh ID token as long expired. */
    @Test
    void anExpiredIdTokenIsRefused() throws Exception {
        int port = TestNode.freePort();
        Map<String, String> values = settings(port, port);
        values.put(TestNode.CLOCK_OFFSET_SECS, "7200");
        try (TestNode late = TestNode.start(new org.farmgate.testkit.guacd.SyntheticGuacdOptions(), values)) {
            Browser alice = new Browser();
            HttpResponse<String> refused = alice.get(alice.signInAtProvider("http://127.0.0.1:" + port, "alice",
                    "alice-pass"));
            assertEquals(401, refused.statusCode());
            assertTrue(refused.body().contains("expired"), refused.body());
        }
    }

    /** The page, in Chromium: Keycloak's own login page, the person in the header, a session, and signing out. */
    @Test
    void aPersonSignsInThroughThePageWorksAndSignsOut() throws Exception {
        assumeTrue(HeadlessChromium.isInstalled(), "Debian's chromium is not installed");
        try (HeadlessChromium chromium = new HeadlessChromium(1200, 800)) {
            chromium.navigate(node(1) + "/");
            chromium.awaitValue("String(!document.querySelector('form.token .sign-in').hidden)", "true", 10_000);
            chromium.evaluate("(() => { document.querySelector('form.token .sign-in').click(); return 'ok'; })()");
            chromium.awaitValue("String(!!document.getElementById('kc-form-login'))", "true", 20_000);
            chromium.evaluate("(() => { document.getElementById('username').value = 'alice';"
                    + " document.getElementById('password').value = 'alice-pass';"
                    + " document.getElementById('kc-form-login').submit(); return 'ok'; })()");
            String who = chromium.awaitValue("document.getElementById('who') ?"
                    + " document.getElementById('who').textContent : ''", "alice · admin", 20_000);
            chromium.screenshot(Path.of("target", "screenshots", "signed-in.png"));
            assertEquals("alice · admin", who, () -> "the page after signing in: " + text(chromium));
            chromium.screenshot(Path.of("target", "screenshots", "signed-in.png"));
            assertEquals("false", chromium.evaluate("String(document.getElementById('admin-link').hidden)"));

            // An entry that logs in with the person's own credentials: the page asks for exactly those, once.
            String entry = "document.querySelector('[data-entry=\"corp/page-box\"] button')";
            chromium.awaitValue("String(!!" + entry + ")", "true", 10_000);
            chromium.evaluate("(() => { " + entry + ".click(); return 'ok'; })()");
            chromium.awaitValue("String(!document.getElementById('ask-credentials').hidden)", "true", 10_000);
            assertEquals("page_username/text,page_password/password", chromium.evaluate("[...document"
                    + ".querySelectorAll('#ask-credentials-fields [name]')].map(f => f.name + '/' + f.type).join()"));
            chromium.screenshot(Path.of("target", "screenshots", "credentials-asked.png"));
            chromium.evaluate("(() => { const f = document.querySelector('#ask-credentials form');"
                    + " f.page_username.value = 'alice-page'; f.page_password.value = 'Pg-s3cret';"
                    + " f.requestSubmit(); return 'ok'; })()");
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000),
                    chromium.evaluate("document.getElementById('status').textContent"));
            chromium.evaluate("(() => { document.getElementById('disconnect').click(); return 'ok'; })()");
            String row = "document.querySelector('[data-variable=\"page_password\"] td:nth-child(2)')";
            assertEquals("••••••••", chromium.awaitValue(row + " ? " + row + ".textContent : ''", "••••••••",
                    10_000));
            assertEquals("false", chromium.evaluate("String(document.getElementById('credentials-section').hidden)"));
            assertTrue(!chromium.evaluate("document.documentElement.outerHTML").contains("Pg-s3cret"),
                    "a stored secret is in the page");
            chromium.screenshot(Path.of("target", "screenshots", "my-credentials.png"));
            // The list refreshes every 5 s; an unchanged book comes back as a 304, not as the whole book again.
            assertEquals("true", chromium.awaitValue("String(performance.getEntriesByName(location.origin"
                    + " + '/api/addressbook').some(e => e.responseStatus === 304))", "true", 15_000));

            chromium.evaluate("(() => { const f = document.getElementById('create'); f.hostname.value = '127.0.0.1';"
                    + " f.requestSubmit(); return 'ok'; })()");
            assertEquals("connected", chromium.awaitValue("document.body.dataset.state", "connected", 15_000),
                    chromium.evaluate("document.getElementById('status').textContent"));
            SessionInfo session = Json.mapper().readValue(cluster.node(1).request("GET", "/api/sessions?all=true",
                    TestNode.ADMIN, null).body(), SessionInfo[].class)[0];
            assertEquals("alice", session.createdBy());
            chromium.evaluate("(() => { document.getElementById('disconnect').click(); return 'ok'; })()");
            chromium.awaitValue("String(!document.getElementById('sign-out').hidden)", "true", 10_000);
            chromium.evaluate("(() => { document.getElementById('sign-out').click(); return 'ok'; })()");
            // Keycloak asks whether to sign out there too (no ID token hint is kept); the person confirms.
            chromium.awaitValue("String(!!document.getElementById('kc-logout'))", "true", 20_000);
            chromium.evaluate("(() => { document.getElementById('kc-logout').click(); return 'ok'; })()");
            chromium.awaitValue("String(location.port === '" + PORTS[1] + "' && !!document.querySelector("
                    + "'form.token .sign-in') && !document.querySelector('form.token .sign-in').hidden)", "true",
                    20_000);
        }
    }

    private static String text(HeadlessChromium chromium) {
        try {
            return chromium.evaluate("location.href + ' ' + document.body.innerText.slice(0, 400)");
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static String node(int n) {
        return "http://127.0.0.1:" + PORTS[n - 1];
    }

    private static String param(String url, String name) {
        Matcher m = Pattern.compile("[?&]" + name + "=([^&]+)").matcher(url);
        assertTrue(m.find(), url);
        return m.group(1);
    }

    /**
     * Browsers count http://127.0.0.1 as a secure context and send it Secure cookies (Keycloak marks its own so, over
     * plain HTTP too); Java's cookie store does not, so this one forgets the flag for loopback, as a browser would.
     */
    static final class LoopbackIsSecure extends java.net.CookieHandler {

        private final CookieManager cookies = new CookieManager(null, CookiePolicy.ACCEPT_ALL);

        @Override
        public Map<String, java.util.List<String>> get(URI uri, Map<String, java.util.List<String>> headers)
                throws java.io.IOException {
            return cookies.get(uri, headers);
        }

        @Override
        public void put(URI uri, Map<String, java.util.List<String>> headers) throws java.io.IOException {
            Map<String, java.util.List<String>> plain = new HashMap<>();
            headers.forEach((name, values) -> plain.put(name, name != null && name.equalsIgnoreCase("Set-Cookie")
                    ? values.stream().map(v -> v.replaceAll("(?i);\\s*Secure", "")).toList() : values));
            cookies.put(uri, plain);
        }
    }

    /** What a browser does with cookies and redirects, done by hand so that each step can be looked at. */
    static final class Browser {

        private final HttpClient http = HttpClient.newBuilder().cookieHandler(new LoopbackIsSecure())
                .followRedirects(HttpClient.Redirect.NEVER).connectTimeout(Duration.ofSeconds(5)).build();

        /** The Set-Cookie headers of the last sign-in's start. */
        private String lastStart;

        /** Starts at the node, signs in on the provider's login form; returns the callback URL it redirects to. */
        String signInAtProvider(String node, String user, String password) throws Exception {
            return completeAtProvider(authorizeUrl(node), user, password);
        }

        /** Signs in on the provider's login form of a sign-in already started; returns the callback URL. */
        String completeAtProvider(String authorize, String user, String password) throws Exception {
            HttpResponse<String> page = get(authorize);
            assertEquals(200, page.statusCode(), page::body);
            Matcher action = Pattern.compile("id=\"kc-form-login\"[^>]*action=\"([^\"]+)\"|action=\"([^\"]+)\"[^>]*"
                    + "id=\"kc-form-login\"").matcher(page.body());
            assertTrue(action.find(), "no login form on the provider's page");
            String target = (action.group(1) != null ? action.group(1) : action.group(2)).replace("&amp;", "&");
            HttpResponse<String> posted = http.send(HttpRequest.newBuilder(URI.create(target))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(KeycloakServer.form("username", user, "password",
                            password, "credentialId", ""))).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(302, posted.statusCode(), () -> "the provider's answer to the login form: "
                    + posted.body().replaceAll("(?s)<head>.*</head>", "").replaceAll("<[^>]+>", " ")
                    .replaceAll("\\s+", " ") + " cookies sent: " + page.headers().allValues("Set-Cookie"));
            return posted.headers().firstValue("Location").orElseThrow();
        }

        /** Where the node sends someone who starts to sign in: the provider's authorization endpoint. */
        String authorizeUrl(String node) throws Exception {
            HttpResponse<String> start = get(node + "/auth/login");
            assertEquals(302, start.statusCode(), start::body);
            lastStart = String.join("\n", start.headers().allValues("Set-Cookie"));
            return start.headers().firstValue("Location").orElseThrow();
        }

        /** The cookie the last sign-in's start set, whose header begins with {@code prefix}. */
        String lastSetCookie(String prefix) {
            return lastStart.lines().filter(cookie -> cookie.startsWith(prefix)).findFirst().orElseThrow(
                    () -> new AssertionError("no " + prefix + " cookie in " + lastStart));
        }

        HttpResponse<String> get(String url) throws Exception {
            return get(url, Map.of());
        }

        HttpResponse<String> get(String url, Map<String, String> headers) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20));
            headers.forEach(request::header);
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> post(String url, String body, String csrf) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
            if (csrf != null) {
                request.header("X-CSRF-Token", csrf);
            }
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> put(String url, String body, String csrf) throws Exception {
            return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json").header("X-CSRF-Token", csrf)
                    .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        }

        /** A WebSocket with this browser's cookies, from a page of {@code origin}. */
        java.net.http.WebSocket webSocket(String url, String origin) {
            return http.newWebSocketBuilder().header("Origin", origin).subprotocols("guacamole")
                    .buildAsync(URI.create(url), new java.net.http.WebSocket.Listener() { }).join();
        }

        HttpResponse<String> delete(String url, String csrf) throws Exception {
            return http.send(HttpRequest.newBuilder(URI.create(url)).header("X-CSRF-Token", csrf).DELETE().build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        String csrf(String node) throws Exception {
            JsonNode me = json(get(node + "/api/me"));
            assertNotNull(me.get("csrf_token"), me::toString);
            return me.get("csrf_token").asText();
        }

        JsonNode json(HttpResponse<String> response) throws Exception {
            return Json.mapper().readTree(response.body());
        }
    }
}
