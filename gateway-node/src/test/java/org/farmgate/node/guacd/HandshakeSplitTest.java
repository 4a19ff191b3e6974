package org.farmgate.node.guacd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.ByteBufUtil;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Protocol;
import org.farmgate.protocol.GuacdArguments;
import org.farmgate.protocol.Instruction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The hand-over after {@code ready}: guacd's answer arrives in whatever pieces the network makes, and whatever
 * follows {@code ready} (the first screen, often in the same read) must reach the session byte for byte, neither
 * lost to the handshake nor doubled. A guacd stand-in on a real socket sends {@code args}, then {@code ready} with
 * the first SSH instructions, cut at every point, each piece read on its own (counted, so a cut the network
 * would have joined again cannot pass unseen); the bytes the connection hands over, then reads, must be exactly
 * those after {@code ready}.
 */
class HandshakeSplitTest {

    private static final byte[] ARGS = new Instruction("args", concat(GuacdArguments.VERSION_1_5_0,
            GuacdArguments.SSH)).toBytes();
    private static final String AFTER_READY = "4.size,1.1,1.0,1.0;4.move,1.2,1.1,1.0,1.0,1.0;4.size,1.0,4.1024,3.768;"
            + "4.name,2.é😀;4.sync,8.12345678,1.0;";
    private static final byte[] REPLY = (new String(ARGS, StandardCharsets.UTF_8)
            + "5.ready,37.$6c987c74-5f45-4936-a005-83b24c48ebba;" + AFTER_READY).getBytes(StandardCharsets.UTF_8);

    private Vertx vertx;
    private NetServer server;
    private NetClient netClient;
    private final AtomicReference<List<byte[]>> pieces = new AtomicReference<>();
    /** How many reads the client's socket handed to its handler, during the handshake and after. */
    private final AtomicInteger readsByClient = new AtomicInteger();
    private final AtomicReference<Runnable> afterClientRead = new AtomicReference<>(() -> { });

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        server = vertx.createNetServer().connectHandler(this::serve).listen(0, "127.0.0.1")
                .await(10, TimeUnit.SECONDS);
        netClient = vertx.createNetClient(new NetClientOptions().setTcpNoDelay(true));
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    /**
     * Answers 'select' with the first two pieces, 'connect' with the rest, and writes a piece only once the client
     * has read the one before: Vert.x hands a read's bytes over in one buffer, so pieces written together would
     * arrive together, and the cut under test would never reach the handshake.
     */
    private void serve(NetSocket socket) {
        Context context = Vertx.currentContext();
        Buffer seen = Buffer.buffer();
        int[] written = {0};
        boolean[] asked = new boolean[2];
        Runnable pump = () -> {
            List<byte[]> reply = pieces.get();
            int next = written[0];
            boolean due = next < reply.size() && next == readsByClient.get() && asked[next < 2 ? 0 : 1];
            if (due) {
                written[0]++;
                socket.write(Buffer.buffer(reply.get(next)));
            }
        };
        afterClientRead.set(() -> context.runOnContext(v -> pump.run()));
        socket.handler(data -> {
            seen.appendBuffer(data);
            String text = seen.toString(StandardCharsets.UTF_8);
            asked[0] |= text.startsWith("6.select,") && text.contains(";");
            asked[1] |= text.contains("7.connect,") && text.endsWith(";");
            pump.run();
        });
    }

    @Test
    void whatFollowsReadyReachesTheSessionByteForByteInEverySplit() throws Exception {
        HandshakeRequest request = request();
        // args cut in two (at a few places), then ready and what follows it cut at every byte.
        for (int first : new int[] {1, ARGS.length / 2, ARGS.length - 1}) {
            for (int second = ARGS.length + 1; second < REPLY.length; second++) {
                pieces.set(List.of(Arrays.copyOfRange(REPLY, 0, first),
                        Arrays.copyOfRange(REPLY, first, ARGS.length),
                        Arrays.copyOfRange(REPLY, ARGS.length, second),
                        Arrays.copyOfRange(REPLY, second, REPLY.length)));
                readsByClient.set(0);
                assertEquals(AFTER_READY, handOver(request), "cut at " + first + " and " + second);
                assertEquals(4, readsByClient.get(), "each piece is read on its own");
            }
        }
    }

    @Test
    void aReadyWithoutAConnectionIdIsRefused() throws Exception {
        HandshakeRequest request = request();
        for (String ready : List.of("5.ready;", "5.ready,0.;")) {
            byte[] reply = (new String(ARGS, StandardCharsets.UTF_8) + ready + AFTER_READY)
                    .getBytes(StandardCharsets.UTF_8);
            pieces.set(List.of(Arrays.copyOfRange(reply, 0, 1), Arrays.copyOfRange(reply, 1, ARGS.length),
                    Arrays.copyOfRange(reply, ARGS.length, reply.length)));
            CompletableFuture<Throwable> refused = new CompletableFuture<>();
            readsByClient.set(0);
            vertx.runOnContext(v -> connect(request).onComplete(result -> refused.complete(result.cause())));
            Throwable error = refused.get(10, TimeUnit.SECONDS);
            org.junit.jupiter.api.Assertions.assertNotNull(error, ready + " was accepted");
            org.junit.jupiter.api.Assertions.assertTrue(error.getMessage().contains("no connection id"),
                    error.getMessage());
        }
    }

    /** As GuacdClient connects, over a socket whose reads are counted and make the stand-in write its next piece. */
    private Future<GuacdConnection> connect(HandshakeRequest request) {
        return netClient.connect(server.actualPort(), "127.0.0.1")
                .compose(socket -> new Handshake(vertx, countingReads(socket), request, Duration.ofSeconds(5)).run());
    }

    /** The socket, its reads counted: the handshake reads it through {@link ChunkReads}, Vert.x's raw handler. */
    @SuppressWarnings("unchecked")
    private NetSocket countingReads(NetSocket socket) {
        InvocationHandler delegate = (proxy, method, args) -> {
            if (method.getName().equals("messageHandler") && args[0] != null) {
                Handler<Object> handler = (Handler<Object>) args[0];
                args = new Object[] {(Handler<Object>) data -> {
                    readsByClient.incrementAndGet();
                    handler.handle(data);
                    afterClientRead.get().run();
                }};
            }
            Object result = method.invoke(socket, args);
            return result == socket ? proxy : result;
        };
        return (NetSocket) Proxy.newProxyInstance(NetSocket.class.getClassLoader(),
                new Class<?>[] {NetSocketInternal.class}, delegate);
    }

    private static HandshakeRequest request() {
        return new HandshakeRequest(Protocol.SSH, Map.of("hostname", "127.0.0.1"), DisplaySize.DEFAULT, List.of(),
                List.of(), List.of("image/png"), "UTC", "test");
    }

    /** Connects, then collects the handed-over bytes and what the socket delivers after, up to the last sync. */
    private String handOver(HandshakeRequest request) throws Exception {
        CompletableFuture<String> received = new CompletableFuture<>();
        vertx.runOnContext(v -> connect(request).onFailure(received::completeExceptionally)
                .onSuccess(connection -> {
                    Buffer all = Buffer.buffer().appendBuffer(connection.firstBytes());
                    Runnable check = () -> {
                        if (all.length() >= AFTER_READY.getBytes(StandardCharsets.UTF_8).length) {
                            received.complete(all.toString(StandardCharsets.UTF_8));
                            connection.socket().close();
                        }
                    };
                    ChunkReads.handler(connection.socket(), data -> {
                        all.appendBytes(ByteBufUtil.getBytes(data));
                        check.run();
                    });
                    check.run();
                    connection.socket().resume();
                }));
        return received.get(10, TimeUnit.SECONDS);
    }

    private static List<String> concat(String head, List<String> tail) {
        List<String> all = new ArrayList<>();
        all.add(head);
        all.addAll(tail);
        return all;
    }

}
