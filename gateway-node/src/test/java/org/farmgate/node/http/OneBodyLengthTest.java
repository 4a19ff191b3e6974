package org.farmgate.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.farmgate.node.TestNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Request smuggling's usual way in: a body whose length the request states twice. Raw requests on a socket, as a
 * client behind a proxy that reads {@code Content-Length} would send them: both lengths are answered 400 and the
 * connection closes, so that nothing after them is read as a request; one length, either kind, is served.
 */
class OneBodyLengthTest {

    /** After the first request, what a proxy reading Content-Length would have taken for the same body. */
    private static final String SMUGGLED = "GET /api/me HTTP/1.1\r\nHost: x\r\n\r\n";

    private static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start();
    }

    @AfterAll
    static void stop() throws Exception {
        node.close();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "both, 1.1 | HTTP/1.1 | Content-Length: 4\\r\\nTransfer-Encoding: chunked | 0\\r\\n\\r\\n | 400 | closed",
        "TE first | HTTP/1.1 | Transfer-Encoding: chunked\\r\\nContent-Length: 40 | 0\\r\\n\\r\\n | 400 | closed",
        "both, 1.0 | HTTP/1.0 | Content-Length: 5\\r\\nTransfer-Encoding: chunked | 0\\r\\n\\r\\n | 400 | closed",
        "chunked | HTTP/1.1 | Transfer-Encoding: chunked | 0\\r\\n\\r\\n | 200 | open",
        "length | HTTP/1.1 | Content-Length: 0 | '' | 200 | open",
    })
    void aBodyHasOneLength(String name, String version, String headers, String body, int status, String after)
            throws Exception {
        try (Socket socket = new Socket("127.0.0.1", node.port())) {
            socket.setSoTimeout(5000);
            String request = "GET /api/health " + version + "\r\nHost: 127.0.0.1\r\n" + unescape(headers) + "\r\n\r\n"
                    + unescape(body);
            socket.getOutputStream().write((request + SMUGGLED).getBytes(StandardCharsets.US_ASCII));
            String answer = read(socket.getInputStream());
            assertTrue(answer.startsWith("HTTP/1.1 " + status + " ") || answer.startsWith("HTTP/1.0 " + status + " "),
                    answer);
            if (after.equals("closed")) {
                assertEquals(1, answer.split("HTTP/1\\.[01] ", -1).length - 1, "one answer, then the close: " + answer);
            } else {
                assertTrue(answer.split("HTTP/1\\.[01] ", -1).length - 1 >= 2, "the next request is served: " + answer);
            }
        }
    }

    /** Everything until the connection closes, or 2 s of silence (a kept connection). */
    private static String read(InputStream in) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < deadline) {
            int n;
            try {
                n = in.read(buffer);
            } catch (SocketTimeoutException quiet) {
                break;
            }
            if (n < 0) {
                break;
            }
            got.write(buffer, 0, n);
            if (got.toString(StandardCharsets.US_ASCII).split("HTTP/1\\.[01] ", -1).length - 1 >= 2) {
                break; // two answers: the connection was kept
            }
        }
        return got.toString(StandardCharsets.US_ASCII);
    }

    private static String unescape(String text) {
        return text.replace("\\r\\n", "\r\n");
    }
}
