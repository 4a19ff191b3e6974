package org.farmgate.node.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.farmgate.node.guacd.GuacdConnection;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.session.TunnelEnd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The tunnel as strict as Vert.x's {@code PipeImpl}: a write the client's connection reports failed ends it (Vert.x 5
 * reports a failed write only to the write's own future), and once ended it leaves none of its handlers on the client,
 * so a late drain cannot resume a guacd connection that another holds by then. The client's WebSocket is a real one,
 * seen through a stand-in that can fail writes and remembers what handlers were last set.
 */
class TunnelWritesTest {

    private Vertx vertx;
    private NetServer guacdServer;
    private HttpServer wsServer;
    /** Held: Vert.x closes a client nothing refers to, under its connections. */
    private WebSocketClient wsClient;
    private final CompletableFuture<NetSocket> guacdSide = new CompletableFuture<>();
    private final CompletableFuture<Void> guacdClosed = new CompletableFuture<>();
    private final StringBuffer guacdReceived = new StringBuffer();
    private final CompletableFuture<TunnelEnd> ended = new CompletableFuture<>();
    private final Map<String, Object> lastHandlers = new ConcurrentHashMap<>();
    private volatile boolean failWrites;

    @BeforeEach
    void start() throws Exception {
        vertx = Vertx.vertx();
        guacdServer = vertx.createNetServer().connectHandler(socket -> {
            socket.handler(bytes -> guacdReceived.append(bytes.toString()));
            socket.closeHandler(ignored -> guacdClosed.complete(null));
            guacdSide.complete(socket);
        }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
        wsServer = vertx.createHttpServer().webSocketHandler(this::relay).listen(0, "127.0.0.1")
                .await(10, TimeUnit.SECONDS);
        wsClient = vertx.createWebSocketClient();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    /** A tunnel between the accepted WebSocket (behind the stand-in) and a fresh connection to the guacd side. */
    private void relay(ServerWebSocket ws) {
        ws.pause();
        io.vertx.core.Context context = vertx.getOrCreateContext();
        vertx.createNetClient().connect(guacdServer.actualPort(), "127.0.0.1").onSuccess(socket -> {
            socket.pause();
            GuacdConnection connection = new GuacdConnection(socket, "$id", "VERSION_1_5_0", Buffer.buffer());
            new Tunnel(context, standIn(ws), connection, "tunnel", new NodeMetrics(), Duration.ofSeconds(30),
                    (end, hold) -> ended.complete(end)).start();
        });
    }

    private ServerWebSocket standIn(ServerWebSocket ws) {
        InvocationHandler delegate = (proxy, method, args) -> {
            String name = method.getName();
            if (failWrites && (name.equals("writeFrame") || name.equals("writeTextMessage"))) {
                return Future.failedFuture("the connection broke under the write");
            }
            if ((name.equals("handler") || name.equals("drainHandler") || name.equals("closeHandler"))) {
                lastHandlers.put(name, args[0] == null ? "none" : args[0]);
            }
            Object result = method.invoke(ws, args);
            return result == ws ? proxy : result;
        };
        return (ServerWebSocket) Proxy.newProxyInstance(ServerWebSocket.class.getClassLoader(),
                new Class<?>[] {ServerWebSocket.class}, delegate);
    }

    /** Connects and waits for the tunnel's first message, which names it: the tunnel runs from then on. */
    private WebSocket connect() throws Exception {
        CompletableFuture<String> named = new CompletableFuture<>();
        WebSocket client = wsClient.connect(new WebSocketConnectOptions().setHost("127.0.0.1")
                .setPort(wsServer.actualPort()).setURI("/")).onSuccess(ws -> ws.textMessageHandler(named::complete))
                .await(10, TimeUnit.SECONDS);
        assertEquals("0.,6.tunnel;", named.get(10, TimeUnit.SECONDS));
        return client;
    }

    @Test
    void aWriteTheClientCannotTakeEndsTheTunnel() throws Exception {
        connect();
        NetSocket guacd = guacdSide.get(10, TimeUnit.SECONDS);
        failWrites = true;
        guacd.write("4.sync,1.1;");
        TunnelEnd end = ended.get(10, TimeUnit.SECONDS);
        assertEquals(TunnelEnd.Cause.CLIENT_LEFT, end.cause());
        assertTrue(end.message().contains("writing to the client failed"), end.message());
        guacdClosed.get(10, TimeUnit.SECONDS); // offered, not kept: the tunnel let guacd's connection go
    }

    @Test
    void anEndedTunnelLeavesNoHandlerOnTheClient() throws Exception {
        WebSocket client = connect();
        NetSocket guacd = guacdSide.get(10, TimeUnit.SECONDS);
        guacd.write("4.sync,1.1;");
        guacd.close();
        assertEquals(TunnelEnd.Cause.GUACD_CLOSED, ended.get(10, TimeUnit.SECONDS).cause());
        for (String handler : new String[] {"handler", "drainHandler", "closeHandler"}) {
            assertEquals("none", String.valueOf(lastHandlers.get(handler)), handler + " still set after the end");
        }
        client.close();
    }

    /**
     * A client that goes, and a tunnel that lets guacd's connection go, says {@code disconnect} to guacd after the
     * client's last whole instruction (never inside one it cut short): with a bare close, guacd's connection process
     * waits out its 15 s user timeout, holding the session's memory that long (docs/GUACD.md).
     */
    @Test
    void aTunnelThatLetsGuacdGoSaysDisconnectAfterTheLastWholeInstruction() throws Exception {
        WebSocket client = connect();
        guacdSide.get(10, TimeUnit.SECONDS);
        client.writeTextMessage("5.mouse,2.10,2.20;5.mouse,2.1");
        client.close();
        assertEquals(TunnelEnd.Cause.CLIENT_LEFT, ended.get(10, TimeUnit.SECONDS).cause());
        guacdClosed.get(10, TimeUnit.SECONDS);
        assertEquals("5.mouse,2.10,2.20;10.disconnect;", guacdReceived.toString());
    }
}
