package org.farmgate.bench.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The benchmarks' baseline client: a handshake that ends or fails, and says why, well before its caller gives up. */
class DirectGuacdTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    @Test
    void aGuacdThatClosesAfterArgsFailsTheHandshakeAtOnceWithWhatItSaw() throws Exception {
        NetServer guacd = vertx.createNetServer().connectHandler(socket -> socket.handler(ignored -> socket
                .end(Buffer.buffer(Instruction.of("args", "VERSION_1_5_0", "hostname")
                        .encode())))).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
        long started = System.nanoTime();
        Exception failed = assertThrows(Exception.class, () -> DirectGuacd.connect(vertx, "127.0.0.1",
                guacd.actualPort(), "ssh", Map.of()).await(10, TimeUnit.SECONDS));
        assertTrue(failed.getMessage().contains("guacd closed the connection before ready, after args"),
                failed.getMessage());
        assertTrue(System.nanoTime() - started < TimeUnit.SECONDS.toNanos(5), "said at once, not at a timeout");
    }

    @Test
    void aGuacdThatSaysReadyHandsOverTheSocket() throws Exception {
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, new SyntheticGuacdOptions()).await(10, TimeUnit.SECONDS);
        DirectGuacd.Connected connected = DirectGuacd.connect(vertx, "127.0.0.1", guacd.port(), "ssh",
                Map.of("hostname", "127.0.0.1")).await(10, TimeUnit.SECONDS);
        assertEquals("127.0.0.1", guacd.lastSession().connectValues().get("hostname"));
        connected.socket().close().await(10, TimeUnit.SECONDS);
        guacd.close().await(10, TimeUnit.SECONDS);
    }
}
