package org.farmgate.node.hostkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.farmgate.error.UnavailableException;
import org.farmgate.error.UpstreamException;
import org.junit.jupiter.api.Test;

/** The probe's own limits: a server that says nothing, too many probes at once, an algorithm it cannot ask for. */
class HostKeyProbeTest {

    @Test
    void aServerThatSaysNothingIsGivenUpOnNamingIt() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
                HostKeyProbe probe = new HostKeyProbe(HostKeyProbe.LIBSSH2_ORDER, Duration.ofSeconds(1))) {
            CompletableFuture<HostKey> probed = probe.probe(InetAddress.getLoopbackAddress(), silent.getLocalPort())
                    .toCompletableFuture();
            try (Socket accepted = silent.accept()) {
                ExecutionException failed = assertThrows(ExecutionException.class,
                        () -> probed.get(10, TimeUnit.SECONDS));
                assertInstanceOf(UpstreamException.class, failed.getCause());
                assertEquals("127.0.0.1:" + silent.getLocalPort() + " did not show an SSH host key within 1 s",
                        failed.getCause().getMessage());
            }
        }
    }

    @Test
    void atMostSoManyProbesRunAtOnceAndEachGivesItsPlaceBack() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 100, InetAddress.getLoopbackAddress());
                HostKeyProbe probe = new HostKeyProbe(HostKeyProbe.LIBSSH2_ORDER, Duration.ofSeconds(2))) {
            List<CompletableFuture<HostKey>> waiting = new ArrayList<>();
            for (int i = 0; i < HostKeyProbe.IN_FLIGHT; i++) {
                waiting.add(probe.probe(InetAddress.getLoopbackAddress(), silent.getLocalPort()).toCompletableFuture());
            }
            ExecutionException refused = assertThrows(ExecutionException.class, () -> probe.probe(
                    InetAddress.getLoopbackAddress(), silent.getLocalPort()).toCompletableFuture().get());
            assertInstanceOf(UnavailableException.class, refused.getCause());
            for (CompletableFuture<HostKey> each : waiting) {
                assertThrows(ExecutionException.class, () -> each.get(10, TimeUnit.SECONDS));
            }
            // every place given back: a closed port is tried (and refused) again at once
            ExecutionException closed = assertThrows(ExecutionException.class, () -> probe.probe(
                    InetAddress.getLoopbackAddress(), 9).toCompletableFuture().get(10, TimeUnit.SECONDS));
            assertTrue(closed.getCause().getMessage().startsWith("could not read the SSH host key of 127.0.0.1:9"),
                    closed.getCause().getMessage());
        }
    }

    @Test
    void anAlgorithmItCannotAskForIsNamed() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> HostKeyProbe.signatures(List.of("ssh-ed25519", "ssh-dss-512")));
        assertTrue(refused.getMessage().contains("'ssh-dss-512'"), refused.getMessage());
        assertThrows(IllegalArgumentException.class, () -> HostKeyProbe.signatures(List.of()));
    }

    @Test
    void aWitnessLearnsTheOrderItsClientAsksIn() throws Exception {
        List<String> order = List.of("ecdsa-sha2-nistp256", "ssh-ed25519", "rsa-sha2-512");
        try (KexWitness witness = KexWitness.start();
                HostKeyProbe client = new HostKeyProbe(order, Duration.ofSeconds(5))) {
            CompletableFuture<HostKey> refused = client.probe(InetAddress.getLoopbackAddress(), witness.port())
                    .toCompletableFuture();
            assertEquals(order, GuacdKeyOrder.known(witness.asked().get(10, TimeUnit.SECONDS)));
            assertThrows(ExecutionException.class, () -> refused.get(10, TimeUnit.SECONDS), "it lets no one in");
        }
        assertEquals(List.of("ecdsa-sha2-nistp256", "ssh-ed25519"), GuacdKeyOrder.known(List.of(
                "ecdsa-sha2-nistp256-cert-v01@openssh.com", "ecdsa-sha2-nistp256", "ssh-ed25519", "ssh-dss")));
        assertThrows(IllegalStateException.class, () -> GuacdKeyOrder.known(List.of("ssh-dss")));
    }

    @Test
    void probesWaitUntilTheOrderIsSettled() throws Exception {
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                HostKeyProbe probe = new HostKeyProbe(HostKeyProbe.LIBSSH2_ORDER, Duration.ofSeconds(1), true)) {
            int port = closed.getLocalPort();
            closed.close();
            CompletableFuture<HostKey> waiting = probe.probe(InetAddress.getLoopbackAddress(), port)
                    .toCompletableFuture();
            assertThrows(TimeoutException.class, () -> waiting.get(200, TimeUnit.MILLISECONDS),
                    "a probe waits for guacd's order");
            probe.follow(List.of("ssh-ed25519"));
            probe.ordered();
            assertThrows(ExecutionException.class, () -> waiting.get(10, TimeUnit.SECONDS), "then goes on");
        }
    }
}
