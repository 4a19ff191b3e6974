package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code GET /metrics}: the figures an operator needs, in a form Prometheus's own linter accepts. */
class MetricsTest {

    private static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions().stream(Duration.ofMillis(20), 4096), Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        node.close();
    }

    @Test
    void countsWhatTheNodeDoes() throws Exception {
        // The node is shared with the other tests of this class: counters are compared with what they were.
        String before = scrape();
        SessionInfo session = node.sshSession();
        assertEquals(400, node.request("POST", "/api/sessions", TestNode.ADMIN, "{}").statusCode());
        try (WsClient ws = node.attach(session)) {
            ws.awaitInstruction("sync");
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> value(scrape(),
                    "farmgate_relay_instructions_total{direction=\"to_client\"}") > 10);
            String text = scrape();
            assertTrue(value(text, "farmgate_sessions{protocol=\"ssh\",status=\"active\"}") >= 1, text);
            assertTrue(value(text, "farmgate_relay_bytes_total{direction=\"to_client\"}") > 1000);
            assertTrue(value(text, "farmgate_relay_instructions_total{direction=\"to_client\"}") > 10);
            assertEquals(1.0, delta(before, text, "farmgate_session_creates_total{outcome=\"created\"}"));
            assertEquals(1.0, delta(before, text, "farmgate_session_creates_total{outcome=\"invalid\"}"));
            assertEquals(1.0, delta(before, text, "farmgate_guacd_handshake_duration_seconds_count{outcome=\"ok\"}"));
            assertTrue(value(text, "farmgate_placement_duration_seconds_count") >= 1);
            assertEquals(1.0, value(text, "farmgate_guacd_up"));
            // the registry entry behind the memory figures is refreshed every heartbeat
            TestNode.await(() -> {
                try {
                    return value(scrape(), "farmgate_memory_model_bytes{protocol=\"ssh\"}") > 0;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "the model's memory for the ssh session never shows");
            assertTrue(text.contains("vertx_http_server_requests_total"), "Vert.x's server metrics");
            assertTrue(text.contains("jvm_memory_used_bytes"));
            assertFalse(text.contains(session.sessionId()), "no session id as a label");
        }
    }

    @Test
    void passesPromtool() throws Exception {
        assumeTrue(new File("/usr/bin/promtool").canExecute(), "promtool (Debian package prometheus) is missing");
        node.sshSession();
        Process promtool = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        promtool.getOutputStream().write(scrape().getBytes(StandardCharsets.UTF_8));
        promtool.getOutputStream().close();
        String out = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(promtool.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, promtool.exitValue(), out);
        assertEquals("", out.trim(), out);
    }

    private static String scrape() throws Exception {
        HttpResponse<String> response = node.request("GET", "/metrics", null, null);
        assertEquals(200, response.statusCode());
        assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
        return response.body();
    }

    /** How much a counter grew from {@code before} to {@code after}; a series not yet there counts as 0. */
    private static double delta(String before, String after, String series) {
        double was = value(before, series);
        return value(after, series) - (Double.isNaN(was) ? 0 : was);
    }

    private static double value(String text, String series) {
        Matcher m = Pattern.compile("^" + Pattern.quote(series) + " (\\S+)$", Pattern.MULTILINE).matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }
}
