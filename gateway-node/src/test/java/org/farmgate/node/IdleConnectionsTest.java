package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * Connections that say nothing (a scanner, a half-open socket, a request whose headers never end) are closed after
 * GW_IDLE_TIMEOUT_SECS; they used to stay for as long as the client liked.
 */
class IdleConnectionsTest {

    @Test
    void silentAndUnfinishedConnectionsAreClosed() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_IDLE_TIMEOUT_SECS", "5"))) {
            try (Socket silent = new Socket("127.0.0.1", node.port());
                    Socket unfinished = new Socket("127.0.0.1", node.port())) {
                OutputStream out = unfinished.getOutputStream();
                out.write("GET /api/health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                long start = System.nanoTime();
                assertClosed(silent);
                assertClosed(unfinished);
                long seconds = (System.nanoTime() - start) / 1_000_000_000L;
                assertTrue(seconds >= 4 && seconds <= 15, "closed after " + seconds + " s");
            }
            assertEquals(200, node.request("GET", "/api/health", null, null).statusCode());
        }
    }

    @Test
    void tricklingHeadersOrABodyDoesNotKeepAConnection() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_IDLE_TIMEOUT_SECS", "5",
                "GW_REQUEST_TIMEOUT_SECS", "3"))) {
            try (Socket headers = new Socket("127.0.0.1", node.port());
                    Socket body = new Socket("127.0.0.1", node.port())) {
                body.getOutputStream().write(("POST /api/tokens HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n"
                        + "Authorization: Bearer " + TestNode.ADMIN + "\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
                long start = System.nanoTime();
                // One byte a second: each resets the idle timer (5 s), none completes a request.
                boolean headersOpen = true;
                boolean bodyOpen = true;
                for (int i = 0; i < 20 && (headersOpen || bodyOpen); i++) {
                    headersOpen = headersOpen && trickle(headers, i == 0 ? "GET /api/health HTTP/1.1\r\n" : "X");
                    bodyOpen = bodyOpen && trickle(body, " ");
                    Thread.sleep(1000);
                }
                long seconds = (System.nanoTime() - start) / 1_000_000_000L;
                assertFalse(headersOpen || bodyOpen, "a trickling connection was still open after " + seconds + " s");
                assertTrue(seconds <= 10, "closed after " + seconds + " s");
            }
            assertEquals(200, node.request("GET", "/api/health", null, null).statusCode());
        }
    }

    @Test
    void connectionsFromOneAddressAreCapped() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_MAX_CONNECTIONS_PER_ADDRESS",
                "10"))) {
            List<Socket> sockets = new ArrayList<>();
            try {
                for (int i = 0; i < 10; i++) {
                    sockets.add(new Socket("127.0.0.1", node.port()));
                }
                try (Socket eleventh = new Socket("127.0.0.1", node.port())) {
                    assertClosed(eleventh);
                }
                OutputStream first = sockets.get(0).getOutputStream();
                first.write("GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                first.flush();
                sockets.get(0).setSoTimeout(10_000);
                String status = new String(sockets.get(0).getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
                assertEquals("HTTP/1.1 200", status, "the ten within the cap are served");
            } finally {
                for (Socket socket : sockets) {
                    socket.close();
                }
            }
            TestNode.await(() -> {
                try {
                    return node.request("GET", "/api/health", null, null).statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            }, "the count went back down when the sockets closed");
        }
    }

    /** Writes, and says whether the connection still took it. */
    private static boolean trickle(Socket socket, String text) {
        try {
            OutputStream out = socket.getOutputStream();
            out.write(text.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            socket.setSoTimeout(1);
            try {
                return socket.getInputStream().read() != -1;
            } catch (java.net.SocketTimeoutException stillOpen) {
                return true;
            }
        } catch (java.io.IOException closed) {
            return false;
        }
    }

    private static void assertClosed(Socket socket) throws Exception {
        socket.setSoTimeout(20_000);
        InputStream in = socket.getInputStream();
        assertEquals(-1, in.read(), "the node closed the connection");
    }
}
