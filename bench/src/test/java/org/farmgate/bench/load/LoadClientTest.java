package org.farmgate.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.Protocol;
import org.farmgate.node.TestCluster;
import org.farmgate.node.TestNode;
import org.farmgate.testkit.fault.FaultProxy;
import org.farmgate.testkit.fault.Faults;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/** The bench's load client against a real node: what it measures, how it fails, and that it leaves nothing behind. */
class LoadClientTest {

    private static TestNode node;

    @BeforeAll
    static void start() throws Exception {
        node = TestNode.start(new SyntheticGuacdOptions().stream(Duration.ofMillis(1000), 1024).echoKeys(true)
                .authFailureDelay(Duration.ofMillis(300)), Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        node.close();
    }

    /** Each test runs as a user of its own, so what one test leaves readable is never counted by another. */
    private String token;

    @BeforeEach
    void newUser(TestInfo test) throws Exception {
        token = node.createToken("load-" + test.getTestMethod().orElseThrow().getName(), "poweruser");
    }

    private LoadOptions options(String baseUrl, String password, int sessions, double holdSecs) {
        return LoadOptions.parse("--base-url", baseUrl, "--token", token, "--protocol", "ssh", "--target-port", "22",
                "--target-password", password, "--sessions", String.valueOf(sessions), "--ramp-secs", "0.5",
                "--hold-secs", String.valueOf(holdSecs), "--mouse-hz", "20", "--keys-hz", "5", "--ping-hz", "5");
    }

    @Test
    void sessionsThatLastTheHoldAreMeasuredAndDeleted(@TempDir Path dir) throws Exception {
        LoadReport report = LoadRun.run(options("http://127.0.0.1:" + node.port(), "bench", 6, 1.5), quiet());
        assertEquals(6, report.sessions());
        assertEquals(0, report.failures(), report.failureReasons().toString());
        for (String metric : List.of("create_ms", "attach_ms", "first_frame_ms", "input_ms", "ping_ms")) {
            assertFalse(Double.isNaN(report.percentile(metric, 50)), metric + " was never measured");
        }
        // Each session's first frame comes after its attach, often in the same read: equal within the histograms'
        // three significant digits, whose buckets differ between two histograms of different ranges.
        assertTrue(report.percentile("first_frame_ms", 50) >= report.percentile("attach_ms", 50) * 0.998,
                () -> "first frame p50 " + report.percentile("first_frame_ms", 50) + " ms, attach p50 "
                        + report.percentile("attach_ms", 50) + " ms");
        // Frames come every second; a key's echo comes at once, so most input round trips are far shorter.
        assertTrue(report.percentile("input_ms", 50) < 250, "input p50 " + report.percentile("input_ms", 50));
        report.writeCsv(dir.resolve("load.csv"));
        report.writeJson(dir.resolve("load.json"));
        assertEquals(7, Files.readAllLines(dir.resolve("load.csv")).size());
        assertEquals(6, org.farmgate.model.Json.mapper().readTree(dir.resolve("load.json").toFile()).get("sessions")
                .asInt());
        JsonNode left = TestNode.json(node.request("GET", "/api/sessions", token, null));
        assertEquals(0, left.size(), "deleted sessions are gone at once: " + left);
    }

    @Test
    void aGuacdErrorIsAFailureWithItsStatus() throws Exception {
        LoadReport report = LoadRun.run(options("http://127.0.0.1:" + node.port(), "wrong", 3, 5), quiet());
        assertEquals(3, report.failures());
        String reason = report.failureReasons().keySet().iterator().next();
        assertTrue(reason.startsWith("guacd error 769"), reason);
        assertNoSessionsLeft();
    }

    @Test
    void aLinkThatDiesFailsEverySessionAndLeavesNothing() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            FaultProxy proxy = FaultProxy.start(vertx, "127.0.0.1", 0, "127.0.0.1", node.port(),
                    Faults.NONE.withCloseAfter(0, Duration.ofMillis(800))).await(5, TimeUnit.SECONDS);
            LoadReport report = LoadRun.run(options("http://127.0.0.1:" + proxy.port(), "bench", 4, 5), quiet());
            assertEquals(4, report.failures(), report.failureReasons().toString());
            assertTrue(proxy.counters().cut() >= 4);
            assertNoSessionsLeft();
        } finally {
            vertx.close().await(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void badOptionsAreRefusedByName() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> LoadOptions.parse("--base-url", "127.0.0.1:8080", "--token", "t"));
        assertTrue(e.getMessage().contains("--base-url"));
        e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> LoadOptions.parse("--token", "t", "--sessions", "0"));
        assertTrue(e.getMessage().contains("--sessions"));
        assertEquals(Protocol.SSH, options("http://x", "p", 1, 1).protocol());
    }

    private void assertNoSessionsLeft() throws Exception {
        TestNode.await(() -> {
            try {
                JsonNode left = TestNode.json(node.request("GET", "/api/sessions", token, null));
                return left.size() == 0 || allFinished(left);
            } catch (Exception e) {
                return false;
            }
        }, "sessions left behind");
    }

    /** A session the gateway already ended (guacd refused it) stays readable for a while; it holds nothing. */
    private static boolean allFinished(JsonNode sessions) {
        for (JsonNode s : sessions) {
            String status = s.get("status").asText();
            if (status.equals("pending") || status.equals("active")) {
                return false;
            }
        }
        return true;
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream());
    }
}
