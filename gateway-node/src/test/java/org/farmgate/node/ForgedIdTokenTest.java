package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ID tokens no honest provider sends, through the node's real sign-in path: a provider of the test's own (discovery,
 * JWKS and a token endpoint on loopback) answers the node's code exchange with the token each case wants. The first
 * case is an honest token, so a harness that could not sign anyone in would fail here, not pass the refusals.
 */
class ForgedIdTokenTest {

    private static final String CLIENT = "farmgate";

    private final Vertx vertx = Vertx.vertx();
    private final KeyPair honest = rsa();
    private final KeyPair rotated = rsa();
    private final KeyPair attacker = rsa();
    /** The keys the provider publishes now, by id. */
    private final Map<String, KeyPair> published = new java.util.concurrent.ConcurrentHashMap<>();
    /** What the token endpoint answers next: given the nonce, the ID token. */
    private volatile UnaryOperator<String> next;
    private HttpServer provider;
    private String issuer;
    private TestNode node;
    private OidcSignInTest.Browser browser;

    @BeforeEach
    void start() throws Exception {
        published.put("k1", honest);
        provider = vertx.createHttpServer().requestHandler(request -> {
            String path = request.path();
            if (path.endsWith("/.well-known/openid-configuration")) {
                request.response().putHeader("Content-Type", "application/json").end(new JsonObject()
                        .put("issuer", issuer).put("authorization_endpoint", issuer + "/auth")
                        .put("token_endpoint", issuer + "/token").put("jwks_uri", issuer + "/jwks")
                        .put("end_session_endpoint", issuer + "/logout").encode());
            } else if (path.endsWith("/jwks")) {
                JsonArray keys = new JsonArray();
                published.forEach((kid, pair) -> keys.add(jwk(kid, (RSAPublicKey) pair.getPublic())));
                request.response().putHeader("Content-Type", "application/json")
                        .end(new JsonObject().put("keys", keys).encode());
            } else if (path.endsWith("/token")) {
                request.body().onSuccess(body -> request.response().putHeader("Content-Type", "application/json")
                        .end(new JsonObject().put("access_token", "opaque").put("token_type", "Bearer")
                                .put("expires_in", 300).put("id_token", next.apply(nonce)).encode()));
            } else {
                request.response().setStatusCode(404).end();
            }
        }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
        issuer = "http://127.0.0.1:" + provider.actualPort() + "/realms/test";
        int port = TestNode.freePort();
        node = TestNode.start(new org.farmgate.testkit.guacd.SyntheticGuacdOptions(), Map.of(
                "GW_HTTP_PORT", String.valueOf(port), "GW_OIDC_ISSUER", issuer, "GW_OIDC_CLIENT_ID", CLIENT,
                "GW_OIDC_CLIENT_SECRET", "s", "GW_OIDC_REDIRECT_BASE", "http://127.0.0.1:" + port,
                "GW_OIDC_ROLE_MAPPINGS", "admins=admin"));
        browser = new OidcSignInTest.Browser();
    }

    @AfterEach
    void stop() throws Exception {
        node.close();
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    private volatile String nonce;

    @Test
    void onlyTheProvidersOwnSignatureOnAnUntouchedTokenSignsAnyoneIn() throws Exception {
        assertEquals(302, signIn(n -> sign(honest, "k1", claims(n), "RS256")).statusCode(), "an honest token");
        assertRefused(signIn(n -> sign(attacker, "k1", claims(n), "RS256")), "did not verify");
        assertRefused(signIn(n -> {
            String[] parts = sign(honest, "k1", claims(n), "RS256").split("\\.");
            JsonObject changed = claims(n).put("groups", new JsonArray().add("admins").add("root"))
                    .put("sub", "someone-else");
            return parts[0] + "." + base64(changed.encode().getBytes(StandardCharsets.UTF_8)) + "." + parts[2];
        }), "did not verify");
        assertRefused(signIn(n -> base64("{\"alg\":\"none\",\"kid\":\"k1\"}".getBytes(StandardCharsets.UTF_8))
                + "." + base64(claims(n).encode().getBytes(StandardCharsets.UTF_8)) + "."), "did not verify");
        assertRefused(signIn(n -> sign(honest, "k1", claims(n).put("aud", "another-client"), "RS256")),
                "did not verify");
        assertRefused(signIn(n -> sign(honest, "k1", claims(n).put("nonce", "an-old-one"), "RS256")), "nonce");
        assertRefused(signIn(n -> sign(honest, "k1", claims(n).put("exp", Instant.now().getEpochSecond() - 3600)
                .put("iat", Instant.now().getEpochSecond() - 7200), "RS256")), "expired");
    }

    /** The provider starts signing with a new key: the first sign-in after fails once, the next works. */
    @Test
    void aRotatedKeyIsFetchedWhenATokenNamesIt() throws Exception {
        assertEquals(302, signIn(n -> sign(honest, "k1", claims(n), "RS256")).statusCode());
        published.put("k2", rotated);
        HttpResponse<String> first = signIn(n -> sign(rotated, "k2", claims(n), "RS256"));
        List<Integer> statuses = new ArrayList<>(List.of(first.statusCode()));
        TestNode.await(() -> {
            try {
                int status = signIn(n -> sign(rotated, "k2", claims(n), "RS256")).statusCode();
                statuses.add(status);
                return status == 302;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "a token signed with the provider's new key never signed anyone in");
        assertTrue(statuses.size() <= 3, "it took " + statuses + " to learn the new key");
    }

    /** Starting a sign-in needs no credential and writes a cluster record: a node starts only so many at once. */
    @Test
    void aNodeStartsOnlySoManySignInsAtOnce() throws Exception {
        int port = TestNode.freePort();
        try (TestNode bounded = TestNode.start(new org.farmgate.testkit.guacd.SyntheticGuacdOptions(), Map.of(
                "GW_HTTP_PORT", String.valueOf(port), "GW_OIDC_ISSUER", issuer, "GW_OIDC_CLIENT_ID", CLIENT,
                "GW_OIDC_REDIRECT_BASE", "http://127.0.0.1:" + port, "GW_OIDC_MAX_PENDING", "3"))) {
            for (int i = 0; i < 3; i++) {
                browser.authorizeUrl("http://127.0.0.1:" + port);
            }
            HttpResponse<String> refused = browser.get("http://127.0.0.1:" + port + "/auth/login");
            assertEquals(503, refused.statusCode());
            assertTrue(refused.body().contains("GW_OIDC_MAX_PENDING"), refused.body());
        }
    }

    private HttpResponse<String> signIn(UnaryOperator<String> token) throws Exception {
        String authorize = browser.authorizeUrl("http://127.0.0.1:" + node.port());
        nonce = param(authorize, "nonce");
        next = token;
        return browser.get("http://127.0.0.1:" + node.port() + "/auth/callback?state=" + param(authorize, "state")
                + "&code=c");
    }

    private JsonObject claims(String forNonce) {
        long now = Instant.now().getEpochSecond();
        return new JsonObject().put("iss", issuer).put("aud", CLIENT).put("sub", "s-1").put("exp", now + 300)
                .put("iat", now).put("nonce", forNonce).put("preferred_username", "dana")
                .put("groups", new JsonArray().add("admins"));
    }

    private static void assertRefused(HttpResponse<String> response, String why) {
        assertEquals(401, response.statusCode(), response::body);
        assertTrue(response.body().contains(why), () -> "not refused for '" + why + "': " + response.body());
    }

    private static String sign(KeyPair key, String kid, JsonObject claims, String alg) {
        try {
            String head = base64(new JsonObject().put("alg", alg).put("typ", "JWT").put("kid", kid).encode()
                    .getBytes(StandardCharsets.UTF_8));
            String body = base64(claims.encode().getBytes(StandardCharsets.UTF_8));
            Signature signature = Signature.getInstance("SHA256withRSA");
            signature.initSign(key.getPrivate());
            signature.update((head + "." + body).getBytes(StandardCharsets.US_ASCII));
            return head + "." + body + "." + base64(signature.sign());
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonObject jwk(String kid, RSAPublicKey key) {
        return new JsonObject().put("kty", "RSA").put("kid", kid).put("use", "sig").put("alg", "RS256")
                .put("n", base64(unsigned(key.getModulus()))).put("e", base64(unsigned(key.getPublicExponent())));
    }

    private static byte[] unsigned(BigInteger value) {
        byte[] bytes = value.toByteArray();
        return bytes[0] == 0 ? java.util.Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
    }

    private static String base64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static KeyPair rsa() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String param(String url, String name) {
        Matcher m = Pattern.compile("[?&]" + name + "=([^&]+)").matcher(url);
        assertTrue(m.find(), url);
        return m.group(1);
    }
}
