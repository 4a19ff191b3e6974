package org.farmgate.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.farmgate.model.Json;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * One user, as guacamole-common-js behaves: creates a session, takes a ticket, opens the tunnel, answers every
 * {@code sync}, moves the mouse and types at set rates, pings the tunnel, and stays for the hold. Input round trip
 * is from a key press to the next frame (its echo, when guacd echoes typing as a shell does). A guacd
 * {@code error}, a {@code disconnect} or a close before the hold ends is a failure, with its reason. It always
 * deletes what it created, so a failed run leaves nothing on the gateway.
 */
final class VirtualUser {

    private final Vertx vertx;
    private final HttpClientAgent http;
    private final WebSocketClient webSockets;
    private final LoadOptions options;
    private final URI base;
    private final SessionRecord record;
    private final Runnable done;
    private final GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);
    /** Guacamole.Client's KEEP_ALIVE_FREQUENCY. */
    private static final long KEEP_ALIVE_MS = 5000;

    private final List<Long> timers = new ArrayList<>();
    private io.vertx.core.Context context;
    private long started;
    private long attaching;
    private WebSocket socket;
    private boolean finished;
    private boolean buttonDown;
    private long keyPressedAt;

    VirtualUser(Vertx vertx, HttpClientAgent http, WebSocketClient webSockets, LoadOptions options, SessionRecord record,
            Runnable done) {
        this.vertx = vertx;
        this.http = http;
        this.webSockets = webSockets;
        this.options = options;
        this.base = URI.create(record.node);
        this.record = record;
        this.done = done;
    }

    void run() {
        context = vertx.getOrCreateContext();
        started = System.nanoTime();
        call(HttpMethod.POST, "/api/sessions", options.sessionBody(), 201).compose(session -> {
            record.createMs = since(started);
            record.sessionId = session.get("session_id").asText();
            String path = session.get("ws_url").asText();
            return call(HttpMethod.POST, "/api/ws-ticket", null, 200)
                    .map(ticket -> path + "?ticket=" + ticket.get("ticket").asText());
        }).compose(path -> {
            attaching = System.nanoTime();
            return webSockets.connect(new WebSocketConnectOptions().setHost(base.getHost()).setPort(port())
                    .setSsl("https".equals(base.getScheme())).setURI(path).addSubProtocol("guacamole"));
        }).onSuccess(this::attached).onFailure(e -> finish(false, e.getMessage()));
    }

    /** From any thread: ends this user now as a failure, deleting its session. */
    void abort(String reason) {
        context.runOnContext(v -> finish(false, reason));
    }

    private int port() {
        return base.getPort() > 0 ? base.getPort() : "https".equals(base.getScheme()) ? 443 : 80;
    }

    private void attached(WebSocket ws) {
        socket = ws;
        if (finished) {
            ws.close();
            return;
        }
        ws.handler(this::received);
        ws.closeHandler(v -> finish(false, "closed before the hold ended"
                + (ws.closeStatusCode() == null ? "" : " (" + ws.closeStatusCode() + " " + ws.closeReason() + ")")));
        ws.exceptionHandler(e -> finish(false, "tunnel: " + e.getMessage()));
        timers.add(vertx.setTimer(Math.max(1, options.hold().toMillis()), id -> finish(true, "")));
        every(options.mouseHz(), this::moveMouse);
        every(options.keysHz(), this::typeKey);
        every(options.pingHz(), () -> send(Instruction.of("", "ping", String.valueOf(System.nanoTime()))));
        // guacamole-common-js's keep-alive: guacd drops a user it has not heard from in 15 s, and an idle console
        // sends no frames, so no sync to answer.
        every(1000.0 / KEEP_ALIVE_MS, () -> send(Instruction.of("nop")));
    }

    private void every(double hz, Runnable action) {
        if (hz > 0) {
            timers.add(vertx.setPeriodic(Math.max(1, Math.round(1000 / hz)), id -> action.run()));
        }
    }

    private void received(Buffer message) {
        record.bytes += message.length();
        byte[] bytes = message.getBytes();
        try {
            parser.feed(bytes, 0, bytes.length, this::instruction);
        } catch (WireFormatException e) {
            finish(false, "the stream broke: " + e.getMessage());
        }
    }

    private void instruction(Instruction instruction) {
        if (finished) {
            return;
        }
        record.instructions++;
        if (record.attachMs < 0) {
            record.attachMs = since(attaching);
        }
        switch (instruction.opcode()) {
            case "sync" -> {
                if (record.firstFrameMs < 0) {
                    record.firstFrameMs = since(attaching);
                }
                record.syncs++;
                if (keyPressedAt != 0) {
                    record.inputMs.add(since(keyPressedAt));
                    keyPressedAt = 0;
                }
                send(Instruction.of("sync", instruction.arg(0)));
            }
            case "error" -> finish(false, "guacd error " + instruction.arg(1) + ": " + instruction.arg(0));
            case "disconnect" -> finish(false, "disconnect before the hold ended");
            case "" -> {
                if (instruction.args().size() == 2 && "ping".equals(instruction.arg(0))) {
                    record.pingMs.add(since(Long.parseLong(instruction.arg(1))));
                }
            }
            default -> {
            }
        }
    }

    private void moveMouse() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        buttonDown = !buttonDown;
        send(Instruction.of("mouse", String.valueOf(random.nextInt(1024)), String.valueOf(random.nextInt(768)),
                buttonDown ? "1" : "0"));
    }

    private void typeKey() {
        String keysym = String.valueOf(0x61 + ThreadLocalRandom.current().nextInt(26));
        if (keyPressedAt == 0) {
            keyPressedAt = System.nanoTime(); // until the next frame: guacd's echo, or any frame that came first
        }
        send(Instruction.of("key", keysym, "1"));
        send(Instruction.of("key", keysym, "0"));
    }

    private void send(Instruction instruction) {
        if (socket != null && !finished && !socket.isClosed()) {
            record.inputs++;
            socket.writeTextMessage(instruction.encode());
        }
    }

    private void finish(boolean ok, String reason) {
        if (finished) {
            return;
        }
        finished = true;
        timers.forEach(vertx::cancelTimer);
        record.ok = ok;
        record.failure = reason;
        Future<Void> closed = socket == null || socket.isClosed() ? Future.succeededFuture() : socket.close();
        closed.recover(e -> Future.succeededFuture()).compose(v -> record.sessionId.isEmpty()
                ? Future.<JsonNode>succeededFuture()
                : call(HttpMethod.DELETE, "/api/sessions/" + record.sessionId, null, 200)
                        .recover(e -> Future.succeededFuture())).onComplete(v -> done.run());
    }

    private Future<JsonNode> call(HttpMethod method, String path, String body, int expected) {
        RequestOptions request = new RequestOptions().setMethod(method).setHost(base.getHost()).setPort(port())
                .setSsl("https".equals(base.getScheme())).setURI(path)
                .putHeader("Authorization", "Bearer " + options.token()).putHeader("Content-Type", "application/json");
        return http.request(request).compose(r -> body == null ? r.send() : r.send(body))
                .compose(response -> response.body().compose(content -> {
                    if (response.statusCode() != expected) {
                        return Future.failedFuture(method + " " + path + " answered " + response.statusCode() + ": "
                                + content.toString().trim());
                    }
                    try {
                        return Future.succeededFuture(content.length() == 0 ? null : Json.mapper().readTree(
                                content.getBytes()));
                    } catch (java.io.IOException e) {
                        return Future.failedFuture(method + " " + path + " answered no JSON");
                    }
                }));
    }

    private static double since(long nanos) {
        return (System.nanoTime() - nanos) / 1e6;
    }
}
