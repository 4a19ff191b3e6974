package org.farmgate.testkit.browser;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.model.Json;
import org.farmgate.testkit.process.NodeProcess;

/**
 * Debian's Chromium, headless, driven over the DevTools protocol: navigate, evaluate JavaScript, take screenshots.
 * No browser is downloaded; tests that need it are skipped where {@code /usr/bin/chromium} is missing.
 */
public final class HeadlessChromium implements AutoCloseable {

    public static final String BINARY = "/usr/bin/chromium";

    private final Process process;
    private final Path profile;
    private final Vertx vertx = Vertx.vertx();
    private final WebSocket devtools;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

    public static boolean isInstalled() {
        return new File(BINARY).canExecute();
    }

    public HeadlessChromium(int width, int height) throws Exception {
        profile = Files.createTempDirectory("farmgate-chromium");
        int port = NodeProcess.freePort();
        process = new ProcessBuilder(BINARY, "--headless=new", "--no-sandbox", "--disable-gpu",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic", "--remote-allow-origins=*", "--remote-debugging-port=" + port,
                "--user-data-dir=" + profile, "--window-size=" + width + "," + height, "about:blank")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String pageUrl = null;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (pageUrl == null && System.nanoTime() < deadline) {
            try {
                JsonNode targets = Json.mapper().readTree(http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                        HttpResponse.BodyHandlers.ofString()).body());
                for (JsonNode target : targets) {
                    if (target.get("type").asText().equals("page")) {
                        pageUrl = target.get("webSocketDebuggerUrl").asText();
                    }
                }
            } catch (Exception e) {
                Thread.sleep(100);
            }
        }
        if (pageUrl == null) {
            close();
            throw new IllegalStateException("chromium did not open its DevTools port");
        }
        URI uri = URI.create(pageUrl);
        // screenshots come back as one large message
        WebSocketClient client = vertx.createWebSocketClient(new io.vertx.core.http.WebSocketClientOptions()
                .setMaxFrameSize(64 * 1024 * 1024).setMaxMessageSize(64 * 1024 * 1024));
        devtools = client.connect(new WebSocketConnectOptions().setHost(uri.getHost()).setPort(uri.getPort())
                .setURI(uri.getPath()).setTimeout(10_000)).await(10, TimeUnit.SECONDS);
        devtools.textMessageHandler(text -> {
            try {
                JsonNode message = Json.mapper().readTree(text);
                if (message.has("id")) {
                    CompletableFuture<JsonNode> waiting = pending.remove(message.get("id").asInt());
                    if (waiting != null) {
                        waiting.complete(message);
                    }
                }
            } catch (Exception e) {
                // events we do not follow
            }
        });
        call("Page.enable", Map.of());
    }

    public JsonNode call(String method, Map<String, Object> params) throws Exception {
        int id = ids.incrementAndGet();
        ObjectNode message = Json.mapper().createObjectNode();
        message.put("id", id);
        message.put("method", method);
        message.set("params", Json.mapper().valueToTree(params));
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        devtools.writeTextMessage(message.toString());
        JsonNode reply = answer.get(20, TimeUnit.SECONDS);
        if (reply.has("error")) {
            throw new IllegalStateException(method + ": " + reply.get("error"));
        }
        return reply.get("result");
    }

    public void navigate(String url) throws Exception {
        call("Page.navigate", Map.of("url", url));
    }

    /** The value of a JavaScript expression in the page, as a string ("" for undefined). */
    public String evaluate(String expression) throws Exception {
        JsonNode result = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true))
                .get("result");
        return result.has("value") ? result.get("value").asText() : "";
    }

    /** Waits until the expression yields {@code expected}; returns the last value seen. */
    public String awaitValue(String expression, String expected, long timeoutMillis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        String value = evaluate(expression);
        while (!value.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            value = evaluate(expression);
        }
        return value;
    }

    public void screenshot(Path file) throws Exception {
        String data = call("Page.captureScreenshot", Map.of("format", "png")).get("data").asText();
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(data));
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
        vertx.close().await(10, TimeUnit.SECONDS);
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
