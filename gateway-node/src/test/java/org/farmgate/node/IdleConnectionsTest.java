package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
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

    private static void assertClosed(Socket socket) throws Exception {
        socket.setSoTimeout(20_000);
        InputStream in = socket.getInputStream();
        assertEquals(-1, in.read(), "the node closed the connection");
    }
}
