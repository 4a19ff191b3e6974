package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.farmgate.model.Protocol;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.AfterEach;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The health probe against the guacd stand-in: one held connection, replaced in time, and every way guacd fails. */
class GuacdProbeTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().await(10, TimeUnit.SECONDS);
    }

    private SyntheticGuacd guacd(int port, SyntheticGuacdOptions options) throws Exception {
        return SyntheticGuacd.start(vertx, "127.0.0.1", port, options, true).await(10, TimeUnit.SECONDS);
    }

    private static boolean probe(GuacdProbe probe) throws Exception {
        return probe.probe().await(10, TimeUnit.SECONDS);
    }

    @Test
    void probesShareOneHeldConnection() throws Exception {
        SyntheticGuacd guacd = guacd(0, new SyntheticGuacdOptions());
        GuacdProbe probe = new GuacdProbe(vertx, "127.0.0.1", guacd.port(), 2000);
        for (int i = 0; i < 5; i++) {
            assertTrue(probe(probe));
        }
        assertEquals(1, guacd.connections().size(), "one connection for every probe");
        assertEquals(1, guacd.waitingAfterArgs());
        probe.close().await(10, TimeUnit.SECONDS);
        await(() -> guacd.openConnections() == 0, "the held connection closes with the probe");
    }

    @Test
    void theHeldConnectionIsReplacedAfterTheRefresh() throws Exception {
        SyntheticGuacd guacd = guacd(0, new SyntheticGuacdOptions());
        GuacdProbe probe = new GuacdProbe(vertx, "127.0.0.1", guacd.port(), 2000, Duration.ofMillis(200));
        assertTrue(probe(probe));
        assertEquals(1, guacd.connections().size());
        // Probes within the refresh interval reuse the held connection; the first one after it opens a new one.
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> probe(probe) && guacd.connections().size() == 2);
        await(() -> guacd.openConnections() == 1, "the older connection is closed once the new one answered");
        probe.close().await(10, TimeUnit.SECONDS);
    }

    @Test
    void aGuacdThatGoesAwayIsNoticedAndOneThatComesBackIsUsedAgain() throws Exception {
        SyntheticGuacd first = guacd(0, new SyntheticGuacdOptions());
        int port = first.port();
        GuacdProbe probe = new GuacdProbe(vertx, "127.0.0.1", port, 2000);
        assertTrue(probe(probe));
        first.close().await(10, TimeUnit.SECONDS); // closes its connections too, as a dying guacd does
        await(() -> {
            try {
                return !probe(probe);
            } catch (Exception e) {
                return false;
            }
        }, "a stopped guacd is unhealthy");
        SyntheticGuacd second = guacd(port, new SyntheticGuacdOptions());
        assertTrue(probe(probe));
        assertEquals(1, second.connections().size());
        probe.close().await(10, TimeUnit.SECONDS);
    }

    @Test
    void aGuacdThatDoesNotAnswerSelectIsUnhealthyAndItsConnectionClosed() throws Exception {
        // guacd without the SSH plugin says nothing at all to select,ssh (see the guacd transcripts).
        SyntheticGuacd guacd = guacd(0, new SyntheticGuacdOptions().installed(EnumSet.of(Protocol.VNC)));
        GuacdProbe probe = new GuacdProbe(vertx, "127.0.0.1", guacd.port(), 300);
        assertFalse(probe(probe));
        await(() -> guacd.openConnections() == 0, "the unanswered connection is closed");
        assertFalse(probe(probe), "and it is tried again, not remembered as held");
        assertEquals(2, guacd.connections().size());
    }

    private static void await(BooleanSupplier condition, String message) {
        Awaitility.await(message).atMost(Duration.ofSeconds(10)).until(condition::getAsBoolean);
    }
}
