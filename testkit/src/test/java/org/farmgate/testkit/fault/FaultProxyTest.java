package org.farmgate.testkit.fault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Every fault through real sockets: an echo target, a talking target, blocking clients. Delays are lower bounds. */
class FaultProxyTest {

    private Vertx vertx;
    private NetServer echo;
    private NetServer talker;
    private final AtomicInteger accepted = new AtomicInteger();

    @BeforeEach
    void targets() throws Exception {
        vertx = Vertx.vertx();
        echo = vertx.createNetServer().connectHandler(socket -> {
            accepted.incrementAndGet();
            socket.pipeTo(socket);
        }).listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS);
        talker = vertx.createNetServer().connectHandler(socket -> socket.write(Buffer.buffer(new byte[5000])))
                .listen(0, "127.0.0.1").await(5, TimeUnit.SECONDS);
    }

    @AfterEach
    void close() throws Exception {
        vertx.close().await(5, TimeUnit.SECONDS);
    }

    private FaultProxy proxy(NetServer target, Faults faults) throws Exception {
        return FaultProxy.start(vertx, "127.0.0.1", 0, "127.0.0.1", target.actualPort(), faults)
                .await(5, TimeUnit.SECONDS);
    }

    @Test
    void withoutFaultsEveryByteComesBackInOrderThroughBackPressure() throws Exception {
        FaultProxy proxy = proxy(echo, Faults.NONE.withLatency(Duration.ofMillis(5), Duration.ofMillis(5)));
        byte[] sent = new byte[4 << 20];
        new Random(7).nextBytes(sent);
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            Thread writer = new Thread(() -> {
                try {
                    socket.getOutputStream().write(sent);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            writer.start();
            byte[] received = socket.getInputStream().readNBytes(sent.length);
            writer.join();
            assertArrayEquals(sent, received);
        }
        awaitClosed(proxy);
    }

    @Test
    void latencyDelaysEachDirection() throws Exception {
        FaultProxy proxy = proxy(echo, Faults.NONE.withLatency(Duration.ofMillis(100), Duration.ZERO));
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            assertTrue(roundTripMillis(socket) >= 195, "a round trip crosses the link twice");
        }
        awaitClosed(proxy);
    }

    @Test
    void bandwidthCapPacesTheBytes() throws Exception {
        FaultProxy proxy = proxy(talker, Faults.NONE.withBandwidth(10_000)); // 5000 bytes take 0.5 s
        long start = System.nanoTime();
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            assertEquals(5000, socket.getInputStream().readNBytes(5000).length);
        }
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 450);
        awaitClosed(proxy);
    }

    @Test
    void aStallHoldsBytesUntilItEnds() throws Exception {
        // Period 1 s, stalled in [100 ms, 1000 ms) of it; a byte sent at ~300 ms waits for the end.
        FaultProxy proxy = proxy(echo, Faults.NONE.withStalls(Duration.ofSeconds(1), Duration.ofMillis(900)));
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            Thread.sleep(300);
            assertTrue(roundTripMillis(socket) >= 500);
        }
        awaitClosed(proxy);
    }

    @Test
    void closeAfterBytesCutsTheStreamThere() throws Exception {
        FaultProxy proxy = proxy(talker, Faults.NONE.withCloseAfter(1000, Duration.ZERO));
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            assertEquals(1000, readUntilClosed(socket.getInputStream()).length);
        }
        assertEquals(1, proxy.counters().cut());
        awaitClosed(proxy);
    }

    @Test
    void closeAfterTimeCutsAnIdleConnection() throws Exception {
        FaultProxy proxy = proxy(echo, Faults.NONE.withCloseAfter(0, Duration.ofMillis(300)));
        long start = System.nanoTime();
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            assertEquals(0, readUntilClosed(socket.getInputStream()).length);
        }
        assertTrue((System.nanoTime() - start) / 1_000_000 >= 290);
        assertEquals(1, proxy.counters().cut());
        awaitClosed(proxy);
    }

    @Test
    void aRefusingProxyResetsAndNeverReachesTheTarget() throws Exception {
        FaultProxy proxy = proxy(echo, Faults.NONE.withRefuse(true));
        try (Socket socket = new Socket("127.0.0.1", proxy.port())) {
            OutputStream out = socket.getOutputStream();
            assertEquals(0, readUntilClosed(socket.getInputStream()).length);
            out.flush();
        }
        assertEquals(1, proxy.counters().refused());
        assertEquals(0, accepted.get());
    }

    @Test
    void negativeOrImpossibleFaultsAreRefusedByName() throws Exception {
        IllegalArgumentException stall = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Faults.NONE.withStalls(Duration.ofMillis(100), Duration.ofMillis(100)));
        assertTrue(stall.getMessage().contains("shorter than its period"));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Faults.NONE.withBandwidth(-1));
    }

    private static long roundTripMillis(Socket socket) throws IOException {
        long start = System.nanoTime();
        socket.getOutputStream().write(42);
        assertEquals(42, socket.getInputStream().read());
        return (System.nanoTime() - start) / 1_000_000;
    }

    /** Reads until the proxy ends the stream, by FIN or by reset. */
    private static byte[] readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[4096];
        try {
            for (int n; (n = in.read(chunk)) >= 0; ) {
                out.write(chunk, 0, n);
            }
        } catch (SocketException reset) {
            // a reset ends the stream too
        }
        return out.toByteArray();
    }

    private static void awaitClosed(FaultProxy proxy) {
        Awaitility.await("connections left open").atMost(Duration.ofSeconds(5))
                .until(() -> proxy.counters().open() == 0);
    }
}
