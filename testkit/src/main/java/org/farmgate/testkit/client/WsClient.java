package org.farmgate.testkit.client;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.http.WebSocketFrame;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * A real Vert.x WebSocket client, seen from a test thread: every text message is checked to hold whole instructions
 * only (as guacamole-common-js requires) and kept in order.
 */
public final class WsClient implements AutoCloseable {

    private static final int BROWSER_FRAME_LIMIT = 16 << 20;

    /** Held as long as the socket: Vert.x 5 closes a client that nothing references, its sockets with it. */
    private final WebSocketClient client;
    private final WebSocket socket;
    private final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
    private final CountDownLatch closed = new CountDownLatch(1);
    private final List<String> violations = new ArrayList<>();
    private volatile Short closeCode;
    private volatile String closeReason;
    private volatile boolean answeringSyncs;

    private WsClient(WebSocketClient client, WebSocket socket) {
        this.client = client;
        this.socket = socket;
    }

    /** Runs on the event loop as the connection completes, so that no early message or close is missed. */
    private WsClient listen() {
        socket.textMessageHandler(message -> {
            try {
                GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);
                List<Instruction> parsed = parser.feed(message.getBytes(StandardCharsets.UTF_8));
                if (answeringSyncs) {
                    parsed.stream().filter(instruction -> instruction.opcode().equals("sync")).forEach(sync ->
                            socket.writeTextMessage(Instruction.of("sync", sync.arg(0)).encode()));
                }
                if (parser.isInsideInstruction()) {
                    synchronized (violations) {
                        violations.add("message ends inside an instruction: " + abbreviate(message));
                    }
                }
            } catch (WireFormatException e) {
                synchronized (violations) {
                    violations.add(e.getMessage() + " in " + abbreviate(message));
                }
            }
            messages.add(message);
        });
        socket.closeHandler(ignored -> {
            closeCode = socket.closeStatusCode();
            closeReason = socket.closeReason();
            closed.countDown();
        });
        return this;
    }

    public static WsClient connect(Vertx vertx, int port, String uri, MultiMap headers) throws Exception {
        return connect(vertx, "127.0.0.1", port, uri, headers);
    }

    public static WsClient connect(Vertx vertx, String host, int port, String uri, MultiMap headers)
            throws Exception {
        // A browser takes frames of any length; the test sees what the node sends, not a library's 64 KiB default.
        WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions()
                .setMaxFrameSize(BROWSER_FRAME_LIMIT).setMaxMessageSize(BROWSER_FRAME_LIMIT));
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost(host).setPort(port)
                .setURI(uri).addSubProtocol("guacamole");
        if (headers != null) {
            options.setHeaders(headers);
        }
        return client.connect(options).map(socket -> new WsClient(client, socket).listen())
                .await(10, TimeUnit.SECONDS);
    }

    /**
     * From now on every {@code sync} is answered as it arrives, as guacamole-common-js does: a test that looks elsewhere
     * for a while is not dropped by guacd as a silent user (after 15 s).
     */
    public WsClient answeringSyncs() {
        answeringSyncs = true;
        return this;
    }

    public WebSocket socket() {
        return socket;
    }

    public void send(String text) {
        socket.writeTextMessage(text);
    }

    /** A message in several WebSocket frames (first text, then continuations). */
    public void sendFragmented(String... parts) {
        for (int i = 0; i < parts.length; i++) {
            boolean last = i == parts.length - 1;
            WebSocketFrame frame = i == 0 ? WebSocketFrame.textFrame(parts[i], last)
                    : WebSocketFrame.continuationFrame(Buffer.buffer(parts[i]), last);
            socket.writeFrame(frame);
        }
    }

    public String nextMessage() throws InterruptedException {
        String message = messages.poll(10, TimeUnit.SECONDS);
        assertNotNull(message, "no message within 10 s");
        return message;
    }

    /** Reads messages until one holds an instruction with this opcode; returns it. */
    public Instruction awaitInstruction(String opcode) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            String message = messages.poll(100, TimeUnit.MILLISECONDS);
            if (message == null) {
                if (closed.getCount() == 0 && messages.isEmpty()) {
                    break;
                }
                continue;
            }
            for (Instruction instruction : parse(message)) {
                if (instruction.opcode().equals(opcode)) {
                    return instruction;
                }
            }
        }
        fail("no '" + opcode + "' instruction arrived" + (isClosed() ? "; the WebSocket closed (" + closeCode + " "
                + closeReason + ")" : " within 10 s"));
        return null;
    }

    /** Every instruction received so far (drains the queue). */
    public List<Instruction> drain() throws WireFormatException {
        List<Instruction> out = new ArrayList<>();
        String message;
        while ((message = messages.poll()) != null) {
            out.addAll(parse(message));
        }
        return out;
    }

    public void awaitClose() throws InterruptedException {
        if (!closed.await(10, TimeUnit.SECONDS)) {
            fail("the WebSocket was not closed within 10 s");
        }
    }

    public boolean isClosed() {
        return closed.getCount() == 0;
    }

    public Short closeCode() {
        return closeCode;
    }

    public String closeReason() {
        return closeReason;
    }

    public List<String> violations() {
        synchronized (violations) {
            return List.copyOf(violations);
        }
    }

    public static List<Instruction> parse(String message) throws WireFormatException {
        return new GuacamoleParser(WireLimits.FROM_GUACD).feed(message.getBytes(StandardCharsets.UTF_8));
    }

    private static String abbreviate(String message) {
        return message.length() <= 80 ? message : message.substring(0, 80) + "...";
    }

    @Override
    public void close() {
        if (!socket.isClosed()) {
            socket.close().onComplete(ignored -> client.close());
        } else {
            client.close();
        }
    }
}
