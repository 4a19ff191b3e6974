package org.farmgate.testkit.vault;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A stand-in for HashiCorp Vault's KV v2 engine, answering exactly as a real Vault does (see the project's
 * vault/KV2.md): LIST shapes with sub-folders ending in '/', {@code 404 {"errors":[]}} for nothing there, 400 for a
 * missing token, 403 for a bad one, check-and-set, metadata delete, AppRole login and token renewal. Every answer
 * can be delayed (the 2-3 ms a network adds) and the whole server can be made to fail.
 */
public final class SyntheticVault {

    private final HttpServer server;
    private final String mount;
    private final Map<String, TreeMap<Integer, JsonObject>> secrets = new ConcurrentHashMap<>();
    private final Set<String> tokens = ConcurrentHashMap.newKeySet();
    private final Map<String, String> appRoles = new ConcurrentHashMap<>();
    private final AtomicLong requests = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger inFlight = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger logins = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger renewals = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger mostInFlight =
            new java.util.concurrent.atomic.AtomicInteger();
    private volatile long delayMillis;
    private volatile int failWith;
    private volatile long tokenTtlSeconds = 3600;

    private SyntheticVault(HttpServer server, String mount) {
        this.server = server;
        this.mount = mount;
    }

    public static Future<SyntheticVault> start(Vertx vertx, String mount, String rootToken) {
        HttpServer server = vertx.createHttpServer();
        SyntheticVault vault = new SyntheticVault(server, mount);
        vault.tokens.add(rootToken);
        server.requestHandler(request -> request.body().onSuccess(body -> {
            vault.requests.incrementAndGet();
            vault.mostInFlight.accumulateAndGet(vault.inFlight.incrementAndGet(), Math::max);
            request.response().endHandler(ignored -> vault.inFlight.decrementAndGet());
            Runnable answer = () -> vault.handle(request, body.length() == 0 ? new JsonObject()
                    : new JsonObject(body));
            if (vault.delayMillis > 0) {
                vertx.setTimer(vault.delayMillis, id -> answer.run());
            } else {
                answer.run();
            }
        }));
        return server.listen(0, "127.0.0.1").map(vault);
    }

    public int port() {
        return server.actualPort();
    }

    public String address() {
        return "http://127.0.0.1:" + port();
    }

    /** Every answer waits this long first. */
    public void delay(long millis) {
        delayMillis = millis;
    }

    /** Every answer is this HTTP status (0: work normally), as a Vault that is sealed or behind a broken proxy. */
    public void failWith(int status) {
        failWith = status;
    }

    public void addAppRole(String roleId, String secretId) {
        appRoles.put(roleId, secretId);
    }

    public void tokenTtlSeconds(long seconds) {
        tokenTtlSeconds = seconds;
    }

    public void revokeAllTokens() {
        tokens.clear();
    }

    /** Successful AppRole logins so far. */
    public int logins() {
        return logins.get();
    }

    /** Token renewals ({@code renew-self}) so far, by a token that was still valid. */
    public int renewals() {
        return renewals.get();
    }

    public long requests() {
        return requests.get();
    }

    /** The most requests it was answering at once: how parallel its clients really were. */
    public int mostInFlight() {
        return mostInFlight.get();
    }

    /** Writes a secret directly, as an admin with the CLI would. */
    public void put(String path, JsonObject data) {
        secrets.computeIfAbsent(path, p -> new TreeMap<>()).put(nextVersion(path), data.copy());
    }

    /** The newest data at a path (tests read what the API wrote). */
    public JsonObject get(String path) {
        TreeMap<Integer, JsonObject> versions = secrets.get(path);
        return versions == null ? null : versions.lastEntry().getValue();
    }

    private int nextVersion(String path) {
        TreeMap<Integer, JsonObject> versions = secrets.get(path);
        return versions == null || versions.isEmpty() ? 1 : versions.lastKey() + 1;
    }

    public Future<Void> close() {
        return server.close();
    }

    private void handle(HttpServerRequest request, JsonObject body) {
        if (failWith > 0) {
            reply(request, failWith, new JsonObject().put("errors", new JsonArray().add("Vault is sealed")));
            return;
        }
        String path = request.path();
        if (path.equals("/v1/auth/approle/login") && request.method() == HttpMethod.POST) {
            String secret = appRoles.get(body.getString("role_id", ""));
            if (secret == null || !secret.equals(body.getString("secret_id"))) {
                reply(request, 400, new JsonObject().put("errors", new JsonArray().add("invalid role or secret ID")));
                return;
            }
            String token = "hvs." + UUID.randomUUID().toString().replace("-", "");
            tokens.add(token);
            logins.incrementAndGet();
            reply(request, 200, envelope(null).put("auth", new JsonObject().put("client_token", token)
                    .put("lease_duration", tokenTtlSeconds).put("renewable", true).put("policies",
                            new JsonArray().add("default"))));
            return;
        }
        String token = request.getHeader("X-Vault-Token");
        String bearer = request.getHeader("Authorization");
        if (token == null && bearer != null && bearer.startsWith("Bearer ")) {
            token = bearer.substring(7);
        }
        if (token == null || token.isEmpty()) {
            reply(request, 400, new JsonObject().put("errors", new JsonArray().add("missing client token")));
            return;
        }
        if (!tokens.contains(token)) {
            reply(request, 403, new JsonObject().put("errors", new JsonArray().add("permission denied")));
            return;
        }
        if (path.equals("/v1/auth/token/renew-self") || path.equals("/v1/auth/token/lookup-self")) {
            if (path.endsWith("renew-self")) {
                renewals.incrementAndGet();
            }
            reply(request, 200, envelope(null).put("auth", new JsonObject().put("client_token", token)
                    .put("lease_duration", tokenTtlSeconds).put("renewable", true)));
            return;
        }
        String dataPrefix = "/v1/" + mount + "/data/";
        String metadataPrefix = "/v1/" + mount + "/metadata/";
        boolean list = "true".equals(request.getParam("list")) || request.method().name().equals("LIST");
        if (path.startsWith(metadataPrefix) && list) {
            list(request, trim(path.substring(metadataPrefix.length())));
        } else if (path.startsWith(metadataPrefix) && request.method() == HttpMethod.DELETE) {
            secrets.remove(trim(path.substring(metadataPrefix.length())));
            request.response().setStatusCode(204).end();
        } else if (path.startsWith(dataPrefix) && request.method() == HttpMethod.GET) {
            read(request, trim(path.substring(dataPrefix.length())));
        } else if (path.startsWith(dataPrefix)
                && (request.method() == HttpMethod.POST || request.method() == HttpMethod.PUT)) {
            write(request, trim(path.substring(dataPrefix.length())), body);
        } else {
            reply(request, 404, new JsonObject().put("errors", new JsonArray()));
        }
    }

    private void list(HttpServerRequest request, String folder) {
        String prefix = folder.isEmpty() ? "" : folder + "/";
        TreeSet<String> keys = new TreeSet<>();
        for (String path : secrets.keySet()) {
            if (path.startsWith(prefix) && path.length() > prefix.length()) {
                String rest = path.substring(prefix.length());
                int slash = rest.indexOf('/');
                keys.add(slash < 0 ? rest : rest.substring(0, slash + 1));
            }
        }
        if (keys.isEmpty()) {
            reply(request, 404, new JsonObject().put("errors", new JsonArray()));
            return;
        }
        reply(request, 200, envelope(new JsonObject().put("keys", new JsonArray(new ArrayList<>(keys)))));
    }

    private void read(HttpServerRequest request, String path) {
        TreeMap<Integer, JsonObject> versions = secrets.get(path);
        if (versions == null || versions.isEmpty()) {
            reply(request, 404, new JsonObject().put("errors", new JsonArray()));
            return;
        }
        reply(request, 200, envelope(new JsonObject().put("data", versions.lastEntry().getValue().copy())
                .put("metadata", metadata(versions.lastKey()))));
    }

    private void write(HttpServerRequest request, String path, JsonObject body) {
        JsonObject options = body.getJsonObject("options");
        int current = secrets.containsKey(path) ? secrets.get(path).lastKey() : 0;
        if (options != null && options.containsKey("cas") && options.getInteger("cas") != current) {
            reply(request, 400, new JsonObject().put("errors", new JsonArray()
                    .add("check-and-set parameter did not match the current version")));
            return;
        }
        JsonObject data = body.getJsonObject("data", new JsonObject());
        int version = nextVersion(path);
        secrets.computeIfAbsent(path, p -> new TreeMap<>()).put(version, data);
        reply(request, 200, envelope(metadata(version)));
    }

    private static JsonObject metadata(int version) {
        return new JsonObject().put("created_time", Instant.now().toString()).put("deletion_time", "")
                .put("destroyed", false).put("version", version);
    }

    private static JsonObject envelope(JsonObject data) {
        return new JsonObject().put("request_id", UUID.randomUUID().toString()).put("lease_id", "")
                .put("renewable", false).put("lease_duration", 0).put("data", data).put("wrap_info", null)
                .put("warnings", null).put("auth", null);
    }

    private static String trim(String path) {
        String out = path;
        while (out.endsWith("/")) {
            out = out.substring(0, out.length() - 1);
        }
        return out;
    }

    private static void reply(HttpServerRequest request, int status, JsonObject body) {
        request.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
    }

    /** Paths of every secret, sorted (tests and the populate tool). */
    public List<String> paths() {
        return new ArrayList<>(new TreeSet<>(secrets.keySet()));
    }
}
