package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * A client that sends Guacamole pings and never reads the echoes: the node stops reading from it once the echoes
 * fill its queue, so the client meets back-pressure instead of the node queueing echoes without end (it once held
 * 480 MB after 24 s and ran out of memory). When the client reads again, the session goes on.
 */
class PingFloodTest {

    private static final long MOST_BYTES = 64L * 1024 * 1024;

    private static boolean staysFull(WsClient client, Duration length) throws InterruptedException {
        long end = System.nanoTime() + length.toNanos();
        while (System.nanoTime() < end) {
            if (!client.socket().writeQueueFull()) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }

    @Test
    void aClientThatNeverReadsIsCutAfterTheStallLimit() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_STALL_TIMEOUT_SECS", "3"))) {
            SessionInfo session = node.sshSession();
            try (WsClient client = node.attach(session)) {
                client.awaitInstruction("sync");
                client.socket().pause();
                StringBuilder batch = new StringBuilder();
                for (int i = 0; i < 1000; i++) {
                    batch.append("0.,4.ping,13.1234567890123;");
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (System.nanoTime() < deadline && !client.socket().isClosed()
                        && node.session(session.sessionId()).status() == SessionStatus.ACTIVE) {
                    if (!client.socket().writeQueueFull()) {
                        client.send(batch.toString());
                    } else {
                        Thread.sleep(50);
                    }
                }
                node.awaitStatus(session.sessionId(), SessionStatus.ERROR);
                String reason = node.session(session.sessionId()).endReason();
                assertTrue(reason.contains("read nothing for 3 s"), reason);
            }
            node.assertNothingLeaks();
        }
    }

    @Test
    void aClientThatNeverReadsMeetsBackPressure() throws Exception {
        try (TestNode node = TestNode.start()) {
            SessionInfo session = node.sshSession();
            try (WsClient client = node.attach(session)) {
                client.awaitInstruction("sync");
                client.socket().pause(); // reads nothing from here on
                StringBuilder batch = new StringBuilder();
                for (int i = 0; i < 1000; i++) {
                    batch.append("0.,4.ping,13.1234567890123;");
                }
                String message = batch.toString();
                long sent = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                boolean held = false;
                while (sent < MOST_BYTES && System.nanoTime() < deadline) {
                    if (client.socket().writeQueueFull()) {
                        // A burst fills the client's own queue for a moment; a node that stopped reading keeps it full.
                        held = staysFull(client, Duration.ofSeconds(2));
                        if (held) {
                            break;
                        }
                        continue;
                    }
                    client.send(message);
                    sent += message.length();
                }
                assertTrue(held, "the node read all " + sent / (1024 * 1024)
                        + " MB of pings without the client reading one echo");

                client.socket().resume();
                client.socket().fetch(Long.MAX_VALUE);
                Awaitility.await("the echoes drain and the session goes on").atMost(Duration.ofSeconds(60))
                        .until(() -> {
                            client.drain();
                            return !client.socket().writeQueueFull();
                        });
                assertEquals(SessionStatus.ACTIVE, node.session(session.sessionId()).status());
            }
        }
    }
}
