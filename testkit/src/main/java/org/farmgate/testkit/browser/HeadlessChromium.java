package org.farmgate.testkit.browser;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.model.Json;
import org.farmgate.testkit.process.NodeProcess;

/**
 * A page in Debian's Chromium, headless, driven over the DevTools protocol: navigate, evaluate JavaScript, take
 * screenshots. No browser is downloaded; tests that need it are skipped where {@code /usr/bin/chromium} is missing.
 *
 * <p>One browser serves a whole test JVM (started at the first page, ended with the JVM): starting one per test was
 * most of the browser tests' time. Each page opens in a browser context of its own, as a private window does, so no
 * cookie, storage or cache of one test is seen by another; closing the page disposes of its context.
 */
public final class HeadlessChromium implements AutoCloseable {

    public static final String BINARY = "/usr/bin/chromium";

    private static Browser browser;

    private final Browser owner;
    private final String context;
    private final String target;
    private final DevTools page;

    public static boolean isInstalled() {
        return new File(BINARY).canExecute();
    }

    /** A new page, {@code width} by {@code height} CSS pixels, in a context of its own. */
    public HeadlessChromium(int width, int height) throws Exception {
        owner = shared();
        context = owner.call("Target.createBrowserContext", Map.of()).get("browserContextId").asText();
        target = owner.call("Target.createTarget", Map.of("url", "about:blank", "browserContextId", context,
                "width", width, "height", height, "newWindow", true)).get("targetId").asText();
        page = DevTools.connect(owner.vertx, owner.port, "/devtools/page/" + target);
        call("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height, "deviceScaleFactor", 1,
                "mobile", false));
        call("Page.enable", Map.of());
    }

    private static synchronized Browser shared() throws Exception {
        if (browser == null || !browser.process.isAlive()) {
            browser = Browser.start();
        }
        return browser;
    }

    public JsonNode call(String method, Map<String, Object> params) throws Exception {
        return page.call(method, params);
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

    /**
     * Waits until the expression yields {@code expected}; returns the last value seen. A page between two documents
     * (a reload, a navigation) has nothing to evaluate in, and says so with an error: that is "not yet".
     */
    public String awaitValue(String expression, String expected, long timeoutMillis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        String value = evaluateWhileNavigating(expression);
        while (!value.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            value = evaluateWhileNavigating(expression);
        }
        return value;
    }

    private String evaluateWhileNavigating(String expression) throws Exception {
        try {
            return evaluate(expression);
        } catch (IllegalStateException e) {
            String message = String.valueOf(e.getMessage());
            if (message.contains("navigated or closed") || message.contains("Cannot find context")) {
                return "(between two documents: " + message + ")";
            }
            throw e;
        }
    }

    public void screenshot(Path file) throws Exception {
        String data = call("Page.captureScreenshot", Map.of("format", "png")).get("data").asText();
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode(data));
    }

    /**
     * Closes the page with its context (its cookies and storage with it; its pages close without their beforeunload
     * hooks); the browser stays for the next test.
     */
    @Override
    public void close() throws Exception {
        page.close();
        if (owner.process.isAlive()) {
            owner.call("Target.disposeBrowserContext", Map.of("browserContextId", context));
        }
    }

    /**
     * The browser process, its profile, and its browser-wide DevTools connection, opened again when Chromium has
     * closed it (it did, between two tests, with the browser still running).
     */
    private static final class Browser {

        private final Process process;
        private final int port;
        private final Vertx vertx;
        private final String path;
        private DevTools devtools;

        private Browser(Process process, int port, Vertx vertx, String path) throws Exception {
            this.process = process;
            this.port = port;
            this.vertx = vertx;
            this.path = path;
            this.devtools = DevTools.connect(vertx, port, path);
        }

        /** Once more on a new connection when Chromium closed the browser-wide one under the call. */
        synchronized JsonNode call(String method, Map<String, Object> params) throws Exception {
            if (!devtools.isOpen()) {
                devtools = DevTools.connect(vertx, port, path);
            }
            try {
                return devtools.call(method, params);
            } catch (java.util.concurrent.ExecutionException e) {
                if (devtools.isOpen() || !process.isAlive()) {
                    throw e;
                }
                devtools = DevTools.connect(vertx, port, path);
                return devtools.call(method, params);
            }
        }

        static Browser start() throws Exception {
            Path profile = Files.createTempDirectory("farmgate-chromium");
            int port = NodeProcess.freePort();
            Process process = new ProcessBuilder(BINARY, "--headless=new", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", "--disable-quic", "--remote-allow-origins=*", "--remote-debugging-port=" + port,
                    "--user-data-dir=" + profile, "about:blank")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            Vertx vertx = Vertx.vertx();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(process, profile, vertx), "chromium-stop"));
            String url = browserUrl(port);
            if (url == null) {
                stop(process, profile, vertx);
                throw new IllegalStateException("chromium did not open its DevTools port");
            }
            return new Browser(process, port, vertx, URI.create(url).getPath());
        }

        private static String browserUrl(int port) throws InterruptedException {
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                try {
                    return Json.mapper().readTree(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + port + "/json/version")).build(), HttpResponse.BodyHandlers.ofString()).body())
                            .get("webSocketDebuggerUrl").asText();
                } catch (IOException | RuntimeException notYet) {
                    Thread.sleep(100);
                }
            }
            return null;
        }

        private static void stop(Process process, Path profile, Vertx vertx) {
            process.destroy();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
                vertx.close().await(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                process.destroyForcibly();
            }
            try (var files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            } catch (IOException e) {
                // a temporary directory, gone with the machine's next clean-up
            }
        }
    }

    /** One DevTools WebSocket: commands by id, answers matched to them; events are not followed. */
    private static final class DevTools {

        /** Held as long as the socket: Vert.x 5 closes a client that nothing references, its sockets with it. */
        private final WebSocketClient client;
        private final WebSocket socket;
        private final AtomicInteger ids = new AtomicInteger();
        private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
        private volatile String closed;

        private DevTools(WebSocketClient client, WebSocket socket) {
            this.client = client;
            this.socket = socket;
        }

        static DevTools connect(Vertx vertx, int port, String path) throws Exception {
            // screenshots come back as one large message
            WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions()
                    .setMaxFrameSize(64 * 1024 * 1024).setMaxMessageSize(64 * 1024 * 1024));
            DevTools devtools = new DevTools(client, client.connect(new WebSocketConnectOptions().setHost("127.0.0.1")
                    .setPort(port).setURI(path).setTimeout(10_000)).await(10, TimeUnit.SECONDS));
            devtools.socket.textMessageHandler(devtools::answer);
            devtools.socket.closeHandler(closed -> devtools.fail("chromium closed its DevTools connection " + path));
            return devtools;
        }

        private void answer(String text) {
            try {
                JsonNode message = Json.mapper().readTree(text);
                if (message.has("id")) {
                    CompletableFuture<JsonNode> waiting = pending.remove(message.get("id").asInt());
                    if (waiting != null) {
                        waiting.complete(message);
                    }
                }
            } catch (IOException e) {
                // not an answer of ours
            }
        }

        /** The connection ended: every command still waiting fails now rather than at its timeout. */
        private void fail(String why) {
            closed = why;
            pending.values().forEach(waiting -> waiting.completeExceptionally(new IllegalStateException(why)));
        }

        boolean isOpen() {
            return closed == null;
        }

        JsonNode call(String method, Map<String, Object> params) throws Exception {
            if (closed != null) {
                throw new IllegalStateException(method + ": " + closed);
            }
            int id = ids.incrementAndGet();
            ObjectNode message = Json.mapper().createObjectNode();
            message.put("id", id);
            message.put("method", method);
            message.set("params", Json.mapper().valueToTree(params));
            CompletableFuture<JsonNode> answer = new CompletableFuture<>();
            pending.put(id, answer);
            socket.writeTextMessage(message.toString());
            JsonNode reply = answer.get(20, TimeUnit.SECONDS);
            if (reply.has("error")) {
                throw new IllegalStateException(method + ": " + reply.get("error"));
            }
            return reply.get("result");
        }

        void close() {
            socket.close().onComplete(ignored -> client.close());
        }
    }
}
