package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A WebSocket client that breaks the protocol (frames written by hand on a raw socket) ends its session as an
 * error, where it used to end "completed" with close 1000, as if all went well: while the session relays, and
 * while guacd is still answering the handshake (which used to end "completed").
 */
class BrokenFramesTest {

    @ParameterizedTest(name = "{0}, {2}")
    @CsvSource({
        "reserved bit RSV1 set, C1, once the session relays",
        "reserved opcode 3, 83, once the session relays",
        "unmasked text frame, 81, once the session relays",
        "reserved bit RSV1 set, C1, during the guacd handshake",
        "unmasked text frame, 81, during the guacd handshake"})
    void aBrokenFrameIsTheClientsError(String what, String firstByte, String when) throws Exception {
        boolean duringHandshake = when.startsWith("during");
        SyntheticGuacdOptions guacd = new SyntheticGuacdOptions().readyDelay(Duration.ofMillis(duringHandshake
                ? 1500 : 0));
        try (TestNode node = TestNode.start(guacd, Map.of())) {
            SessionInfo session = node.sshSession();
            breakProtocol(node, session, what, firstByte, duringHandshake);
            node.awaitStatus(session.sessionId(), SessionStatus.ERROR);
            node.assertNothingLeaks();
        }
    }

    /** Through a relay: the owner hears of the violation, where it used to see a polite close. */
    @Test
    void aBrokenFrameAtTheRelayIsTheClientsErrorOnTheOwner() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of("GW_MEMORY_BUDGET_MB", n == 1 ? "5" : "100000",
                "GW_COST_SSH_MB", "10"))) {
            SessionInfo session = cluster.node(1).sshSession();
            assertEquals("node-2", session.nodeId(), "node 1 has no room: the session is node 2's");
            breakProtocol(cluster.node(1), session, "reserved bit RSV1 set", "C1", false);
            cluster.node(2).awaitStatus(session.sessionId(), SessionStatus.ERROR);
            for (TestNode node : cluster.nodes) {
                node.assertNothingLeaks();
            }
        }
    }

    private static void breakProtocol(TestNode entry, SessionInfo session, String what, String firstByte,
            boolean duringHandshake) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", entry.port())) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            String key = Base64.getEncoder().encodeToString("0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
            out.write(("GET " + session.wsUrl() + "?ticket=" + entry.ticket(TestNode.ADMIN) + " HTTP/1.1\r\n"
                    + "Host: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    + "Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Protocol: guacamole\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String head = readHead(in);
            assertTrue(head.startsWith("HTTP/1.1 101"), head);
            if (!duringHandshake) {
                awaitText(in, "sync"); // the guacd handshake is over, the tunnel relays
            }
            byte[] payload = "4.sync,1.0;".getBytes(StandardCharsets.US_ASCII);
            boolean masked = !what.startsWith("unmasked");
            ByteArrayOutputStream frame = new ByteArrayOutputStream();
            frame.write(Integer.parseInt(firstByte, 16));
            frame.write((masked ? 0x80 : 0) | payload.length);
            if (masked) {
                frame.write(new byte[] {0, 0, 0, 0}); // a zero mask: the payload as it is
            }
            frame.write(payload);
            out.write(frame.toByteArray());
            out.flush();
            int code = closeCode(in);
            assertTrue(code == 1002 || code == -1, what + ": closed with " + code);
        }
    }

    private static String readHead(InputStream in) throws Exception {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** Reads frames until a text frame that holds {@code text}. */
    private static void awaitText(InputStream in, String text) throws Exception {
        while (true) {
            int first = in.read();
            int second = in.read();
            int length = second & 0x7f;
            if (length == 126) {
                length = (in.read() << 8) | in.read();
            }
            byte[] payload = in.readNBytes(length);
            if ((first & 0x0f) == 0x1 && new String(payload, StandardCharsets.UTF_8).contains(text)) {
                return;
            }
        }
    }

    /** Reads frames until a close frame: its status code; -1 if the connection ends without one. */
    private static int closeCode(InputStream in) throws Exception {
        while (true) {
            int first = in.read();
            int second = in.read();
            if (first < 0 || second < 0) {
                return -1;
            }
            long length = second & 0x7f;
            if (length == 126) {
                length = (in.read() << 8) | in.read();
            } else if (length == 127) {
                length = 0;
                for (int i = 0; i < 8; i++) {
                    length = (length << 8) | in.read();
                }
            }
            byte[] payload = in.readNBytes((int) length);
            if ((first & 0x0f) == 0x8) {
                return payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : 1005;
            }
        }
    }
}
