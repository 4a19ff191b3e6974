package org.farmgate.node;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.farmgate.model.Json;

/**
 * A real Keycloak (the server distribution from Maven Central, unpacked by the build into target/keycloak) in
 * development mode on loopback, with the realm of deploy/keycloak imported (the one the README uses). Keycloak
 * needs Java 21 or later: {@code KEYCLOAK_JAVA_HOME}, or the newest such JDK under /usr/lib/jvm.
 */
final class KeycloakServer implements AutoCloseable {

    static final String REALM = "farmgate";
    private static final Path DIST = Path.of("target", "keycloak", "keycloak-26.4.7");

    private final Process process;
    final int port;
    private final Path log;
    private final HttpClient http = HttpClient.newHttpClient();

    /** Why Keycloak cannot run here, or empty when it can. */
    static Optional<String> unavailable() {
        if (!Files.isRegularFile(DIST.resolve("bin").resolve("kc.sh"))) {
            return Optional.of("the Keycloak distribution is not unpacked at " + DIST + " (mvn process-test-resources)");
        }
        return java21().isPresent() ? Optional.empty()
                : Optional.of("no Java 21+ for Keycloak (set KEYCLOAK_JAVA_HOME, or install one under /usr/lib/jvm)");
    }

    static Optional<Path> java21() {
        String home = System.getenv("KEYCLOAK_JAVA_HOME");
        if (home != null && Files.isExecutable(Path.of(home, "bin", "java"))) {
            return Optional.of(Path.of(home));
        }
        try (Stream<Path> jdks = Files.list(Path.of("/usr/lib/jvm"))) {
            return jdks.filter(jdk -> major(jdk) >= 21 && Files.isExecutable(jdk.resolve("bin").resolve("java")))
                    .max(Comparator.comparingInt(KeycloakServer::major));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static int major(Path jdk) {
        try {
            Matcher m = Pattern.compile("JAVA_VERSION=\"(\\d+)").matcher(Files.readString(jdk.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    KeycloakServer() throws Exception {
        this.port = TestNode.freePort();
        Path data = DIST.resolve("data");
        deleteTree(data); // a fresh realm every start: nothing left from an earlier run
        Files.createDirectories(data.resolve("import"));
        Files.copy(Path.of("..", "deploy", "keycloak", "farmgate-realm.json"),
                data.resolve("import").resolve("farmgate-realm.json"));
        this.log = Files.createTempFile("keycloak", ".log");
        ProcessBuilder builder = new ProcessBuilder("bash", DIST.resolve("bin").resolve("kc.sh").toString(),
                "start-dev", "--http-host=127.0.0.1", "--http-port=" + port, "--import-realm",
                "--cache=local", "--health-enabled=false")
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", java21().orElseThrow().toString());
        builder.environment().put("KC_BOOTSTRAP_ADMIN_USERNAME", "admin");
        builder.environment().put("KC_BOOTSTRAP_ADMIN_PASSWORD", "admin");
        this.process = builder.start();
        try {
            org.awaitility.Awaitility.await("Keycloak answers").atMost(Duration.ofSeconds(240))
                    .pollInterval(Duration.ofMillis(500)).until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException("Keycloak exited with " + process.exitValue());
                        }
                        return ready();
                    });
        } catch (RuntimeException e) {
            String tail = Files.readString(log);
            close();
            throw new IllegalStateException("Keycloak did not start: " + tail.substring(Math.max(0,
                    tail.length() - 3000)), e);
        }
    }

    String issuer() {
        return "http://127.0.0.1:" + port + "/realms/" + REALM;
    }

    private boolean ready() {
        try {
            return http.send(HttpRequest.newBuilder(URI.create(issuer() + "/.well-known/openid-configuration"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Puts a user in a group, as an administrator of the provider does (its admin REST API). */
    void addToGroup(String username, String group) throws Exception {
        String admin = adminToken();
        String userId = get(admin, "/admin/realms/" + REALM + "/users?exact=true&username=" + username).get(0)
                .get("id").asText();
        String groupId = null;
        for (JsonNode found : get(admin, "/admin/realms/" + REALM + "/groups?search=" + group)) {
            if (found.get("name").asText().equals(group)) {
                groupId = found.get("id").asText();
            }
        }
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + "/admin/realms/" + REALM + "/users/" + userId + "/groups/" + groupId))
                .header("Authorization", "Bearer " + admin).PUT(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        if (put.statusCode() != 204) {
            throw new IllegalStateException("adding " + username + " to " + group + ": " + put.body());
        }
    }

    private String adminToken() throws Exception {
        String form = "grant_type=password&client_id=admin-cli&username=admin&password=admin";
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/realms/master/protocol/openid-connect/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
        return Json.mapper().readTree(response.body()).get("access_token").asText();
    }

    private JsonNode get(String token, String path) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                + path)).header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        return Json.mapper().readTree(response.body());
    }

    static String form(String... pairs) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < pairs.length; i += 2) {
            out.append(out.isEmpty() ? "" : "&").append(URLEncoder.encode(pairs[i], StandardCharsets.UTF_8))
                    .append('=').append(URLEncoder.encode(pairs[i + 1], StandardCharsets.UTF_8));
        }
        return out.toString();
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        Files.deleteIfExists(log);
    }
}
