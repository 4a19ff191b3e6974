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

    /** A thousand pings in one message: 27 KB of echoes the node owes the client. */
    private static final String PINGS = "0.,4.ping,13.1234567890123;".repeat(1000);

    /** Sends pings while the client's own queue has room, up to {@code most} bytes in all; returns what it sent. */
    private static long flood(WsClient client, long sentBefore, long most) {
        long sent = sentBefore;
        while (sent < most && !client.socket().isClosed() && !client.socket().writeQueueFull()) {
            client.send(PINGS);
            sent += PINGS.length();
        }
        return sent;
    }

    @Test
    void aClientThatNeverReadsIsCutAfterTheStallLimit() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_STALL_TIMEOUT_SECS", "3"))) {
            SessionInfo session = node.sshSession();
            try (WsClient client = node.attach(session)) {
                client.awaitInstruction("sync");
                client.socket().pause();
                Awaitility.await("the session ends").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            flood(client, 0, Long.MAX_VALUE);
                            return client.socket().isClosed()
                                    || node.session(session.sessionId()).status() != SessionStatus.ACTIVE;
                        });
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
                long[] sent = {0};
                long[] fullSince = {0};
                Awaitility.await("the node stops reading pings whose echoes the client does not read")
                        .atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50)).until(() -> {
                            if (!client.socket().writeQueueFull()) {
                                fullSince[0] = 0;
                                sent[0] = flood(client, sent[0], MOST_BYTES);
                                assertTrue(sent[0] < MOST_BYTES, "the node read all " + sent[0] / (1024 * 1024)
                                        + " MB of pings without the client reading one echo");
                                return false;
                            }
                            // A burst fills the client's own queue for a moment; a node that stopped reading keeps
                            // it full.
                            if (fullSince[0] == 0) {
                                fullSince[0] = System.nanoTime();
                            }
                            return System.nanoTime() - fullSince[0] >= TimeUnit.SECONDS.toNanos(2);
                        });

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
