package org.farmgate.node.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's write shortcut on a real WebSocket: a text message written from pooled memory, one buffer or several
 * (an instruction kept across reads), arrives whole as one message, and the memory is released once written; a write
 * to a closed WebSocket releases it too (Vert.x's own check would leave it held).
 */
class BytesTest {

    private Vertx vertx;
    private HttpServer server;
    private WebSocketClient client;
    private final CompletableFuture<ServerWebSocket> serverSide = new CompletableFuture<>();
    private final LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
    private WebSocket clientSide;

    @BeforeEach
    void connect() throws Exception {
        vertx = Vertx.vertx();
        server = vertx.createHttpServer().webSocketHandler(serverSide::complete).listen(0, "127.0.0.1")
                .await(10, TimeUnit.SECONDS);
        client = vertx.createWebSocketClient();
        clientSide = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(server.actualPort())
                .setURI("/")).await(10, TimeUnit.SECONDS);
        clientSide.textMessageHandler(received::add);
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    @Test
    void aMessageWrittenFromPooledMemoryArrivesWholeAndTheMemoryIsReleased() throws Exception {
        ServerWebSocket ws = serverSide.get(10, TimeUnit.SECONDS);
        String big = "5.image," + "é".repeat(20_000).length() + "." + "é".repeat(20_000) + ";";
        for (List<String> parts : List.of(List.of("4.sync,1.1;"), List.of(big), List.of(big.substring(0, 9),
                big.substring(9, 3001), big.substring(3001)))) {
            List<ByteBuf> buffers = parts.stream().map(part -> (ByteBuf) PooledByteBufAllocator.DEFAULT
                    .directBuffer().writeBytes(part.getBytes(StandardCharsets.UTF_8))).toList();
            ByteBuf payload = buffers.size() == 1 ? buffers.get(0)
                    : Unpooled.wrappedBuffer(buffers.size(), buffers.toArray(ByteBuf[]::new));
            CompletableFuture<Void> written = new CompletableFuture<>();
            vertx.runOnContext(v -> Bytes.writeText(ws, payload).onComplete(done -> written.complete(null)));
            written.get(10, TimeUnit.SECONDS);
            assertEquals(String.join("", parts), received.poll(10, TimeUnit.SECONDS));
            for (ByteBuf buffer : buffers) {
                assertEquals(0, buffer.refCnt(), "still held after the write: " + parts.size() + " part(s)");
            }
        }
    }

    @Test
    void aWriteToAClosedWebSocketFailsAndReleasesTheMemory() throws Exception {
        ServerWebSocket ws = serverSide.get(10, TimeUnit.SECONDS);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        vertx.runOnContext(v -> ws.close().onComplete(done -> closed.complete(null)));
        closed.get(10, TimeUnit.SECONDS);
        ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer().writeBytes("4.sync,1.1;".getBytes());
        CompletableFuture<Throwable> failure = new CompletableFuture<>();
        vertx.runOnContext(v -> Bytes.writeText(ws, payload).onComplete(done -> failure.complete(done.cause())));
        assertTrue(failure.get(10, TimeUnit.SECONDS) != null, "a write to a closed WebSocket succeeded");
        assertEquals(0, payload.refCnt());
    }
}
