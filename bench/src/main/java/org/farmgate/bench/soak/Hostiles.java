package org.farmgate.bench.soak;

import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.farmgate.model.Json;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.process.NodeProcess;

/**
 * The hostile clients of the soak, beside the well-behaved sessions, each kind on its own thread and bounded in
 * count and time: clients that flood pings and never read, slowloris sockets trickling headers, WebSockets that
 * send broken or oversized frames, and bursts of bad API calls. It counts what the nodes answered; a 5xx is a
 * finding.
 */
final class Hostiles implements AutoCloseable {

    private static final String CREATE = "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\"}";
    private static final int SLOWLORIS_PER_NODE = 50;

    private final List<NodeProcess> nodes;
    private final String token;
    private final Vertx vertx = Vertx.vertx();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final Random random = new Random(2026);
    final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    Hostiles(List<NodeProcess> nodes, String token) {
        this.nodes = nodes;
        this.token = token;
    }

    void start() {
        spawn("non-readers", this::nonReaders);
        spawn("slowloris", this::slowloris);
        spawn("broken-frames", this::brokenFrames);
        spawn("bad-api", this::badApi);
    }

    private void spawn(String name, Body body) {
        Thread thread = new Thread(() -> {
            while (running.get()) {
                try {
                    body.run();
                } catch (Exception e) {
                    count(name + ".client_errors");
                    pause(500);
                }
            }
        }, "hostile-" + name);
        thread.setDaemon(true);
        threads.add(thread);
        thread.start();
    }

    private interface Body {
        void run() throws Exception;
    }

    private void count(String what) {
        counts.computeIfAbsent(what, k -> new AtomicLong()).incrementAndGet();
    }

    /** A session per node whose client floods pings and reads nothing, until the node cuts it; then the next. */
    private void nonReaders() throws Exception {
        List<WsClient> clients = new ArrayList<>();
        try {
            for (NodeProcess node : nodes) {
                String id = create(node);
                WsClient ws = WsClient.connect(vertx, node.httpPort(), "/ws/" + id + "?ticket=" + ticket(node), null);
                ws.socket().pause();
                clients.add(ws);
            }
            String pings = "0.,4.ping,13.1234567890123;".repeat(1000);
            long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
            while (running.get() && System.nanoTime() < deadline && clients.stream().anyMatch(c -> !c.isClosed())) {
                boolean sent = false;
                for (WsClient ws : clients) {
                    if (!ws.isClosed() && !ws.socket().writeQueueFull()) {
                        ws.send(pings);
                        count("non-readers.ping_batches");
                        sent = true;
                    }
                }
                if (!sent) {
                    pause(200);
                }
            }
            clients.stream().filter(WsClient::isClosed).forEach(c -> count("non-readers.cut_by_node"));
        } finally {
            // Not a close handshake: these sockets read nothing and their write queues are full, so a close frame
            // would wait behind them for ever.
            clients.forEach(ws -> ws.socket().shutdown(0, java.util.concurrent.TimeUnit.SECONDS));
        }
    }

    /** Sockets that send one header byte a second; each one the node closes is counted and replaced. */
    private void slowloris() throws Exception {
        List<Socket> sockets = new ArrayList<>();
        try {
            while (running.get()) {
                while (sockets.size() < SLOWLORIS_PER_NODE * nodes.size()) {
                    NodeProcess node = nodes.get(sockets.size() % nodes.size());
                    Socket socket = new Socket("127.0.0.1", node.httpPort());
                    socket.getOutputStream().write("GET /api/health HTTP/1.1\r\nX-Slow: ".getBytes(
                            StandardCharsets.US_ASCII));
                    sockets.add(socket);
                    count("slowloris.opened");
                }
                for (Socket socket : new ArrayList<>(sockets)) {
                    try {
                        socket.getOutputStream().write('x');
                        socket.getOutputStream().flush();
                    } catch (IOException closed) {
                        sockets.remove(socket);
                        socket.close();
                        count("slowloris.closed_by_node");
                    }
                }
                pause(1000);
            }
        } finally {
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    /** Every 2 s, on a node in turn, a session whose client sends a broken or an oversized frame. */
    private void brokenFrames() throws Exception {
        NodeProcess node = nodes.get(random.nextInt(nodes.size()));
        String id = create(node);
        try (Socket socket = new Socket("127.0.0.1", node.httpPort())) {
            socket.setSoTimeout(15_000);
            OutputStream out = socket.getOutputStream();
            String key = Base64.getEncoder().encodeToString("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
            out.write(("GET /ws/" + id + "?ticket=" + ticket(node) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: " + key
                    + "\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: guacamole\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] head = in.readNBytes(12);
            if (!new String(head, StandardCharsets.US_ASCII).equals("HTTP/1.1 101")) {
                count("broken-frames.not_upgraded");
                return;
            }
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            if (random.nextBoolean()) {
                frame.write(0xC1); // RSV1 set, no extension agreed
                frame.write(0x80 | 4);
                frame.write(new byte[] {0, 0, 0, 0, '1', '.', 'a', ';'});
                count("broken-frames.rsv1");
            } else {
                frame.write(0x81); // a text frame that says it is 256 MiB
                frame.write(0x80 | 127);
                frame.write(new byte[] {0, 0, 0, 0, 0x10, 0, 0, 0});
                frame.write(new byte[] {0, 0, 0, 0});
                frame.write(new byte[65536]);
                count("broken-frames.oversized");
            }
            try {
                out.write(frame.toByteArray());
                out.flush();
                while (in.read() >= 0) {
                    // read until the node closes
                }
                count("broken-frames.closed_by_node");
            } catch (IOException reset) {
                count("broken-frames.closed_by_node");
            }
        }
        pause(2000);
    }

    /** A burst of 20 bad calls a second, to nodes in turn; answers counted by status class. */
    private void badApi() throws Exception {
        String big = "{\"hostname\":\"" + "a".repeat(100_000) + "\"}";
        String[][] calls = {
            {"POST", "/api/sessions", "{\"hostname\":"},
            {"POST", "/api/sessions", "null"},
            {"POST", "/api/sessions", "{\"hostname\":\"999.0.0.1\"}"},
            {"POST", "/api/sessions", "{\"hostname\":\"127.0.0.1\",\"port\":\"twenty-two\"}"},
            {"POST", "/api/sessions", "{\"hostname\":\"127.0.0.1\",\"recording-path\":\"/etc\"}"},
            {"POST", "/api/sessions", big},
            {"POST", "/api/tokens", "{\"name\":\"x\",\"role\":\"viewer\",\"groups\":[null]}"},
            {"GET", "/api/sessions/not-a-session", null},
            {"DELETE", "/api/tokens/nobody", null},
            {"GET", "/api/../../etc/passwd", null},
            {"PUT", "/api/health", "x"},
        };
        for (int i = 0; i < 20 && running.get(); i++) {
            String[] call = calls[random.nextInt(calls.length)];
            NodeProcess node = nodes.get(random.nextInt(nodes.size()));
            boolean wrongToken = random.nextInt(4) == 0;
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.baseUrl() + call[1]))
                    .timeout(Duration.ofSeconds(10))
                    .header("Authorization", "Bearer " + (wrongToken ? "gwt_wrong" : token))
                    .method(call[0], call[2] == null ? HttpRequest.BodyPublishers.noBody()
                            : HttpRequest.BodyPublishers.ofString(call[2]));
            try {
                int status = http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                count("bad-api." + status / 100 + "xx");
                if (status >= 500) {
                    count("bad-api.5xx " + call[0] + " " + call[1] + " -> " + status);
                }
            } catch (IOException e) {
                count("bad-api.connection_errors");
            }
        }
        pause(1000);
    }

    private String create(NodeProcess node) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(node.baseUrl() + "/api/sessions"))
                .header("Authorization", "Bearer " + token).POST(HttpRequest.BodyPublishers.ofString(CREATE))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 201) {
            count("create." + response.statusCode());
            throw new IOException("create answered " + response.statusCode() + ": " + response.body());
        }
        return Json.mapper().readTree(response.body()).get("session_id").asText();
    }

    private String ticket(NodeProcess node) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(node.baseUrl()
                + "/api/ws-ticket")).header("Authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        return Json.mapper().readTree(response.body()).get("ticket").asText();
    }

    private static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws Exception {
        running.set(false);
        for (Thread thread : threads) {
            thread.join(30_000);
        }
        // The hostile clients' sockets may still be paused behind full write queues, whose close frames never go; a
        // close that does not end is reported, not waited for (the measurement is over, the JVM's exit ends them).
        try {
            vertx.close().await(60, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            System.err.println("the hostile clients' Vert.x did not close within 60 s; left to the JVM's exit");
        }
    }
}
