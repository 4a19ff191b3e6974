package org.farmgate.bench.k6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.farmgate.node.TestCluster;
import org.farmgate.node.TestNode;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The k6 scripts of bench/k6 against a 3-node cluster with synthetic guacds, in their QUICK form, through the smoke
 * runner (bench/k6/smoke: Node worker threads with k6's API shimmed, since k6 itself cannot be installed here).
 * Needs Node.js and the ws package from npm; skipped without them.
 */
@WaitBound
class K6ScriptsSmokeTest {

    private static final Path BENCH = Path.of("").toAbsolutePath();
    private static final Path MODULES = BENCH.resolve("target/k6-smoke");
    private static TestCluster cluster;
    private static String urls;
    private static Path book;

    @BeforeAll
    static void start() throws Exception {
        assumeTrue(run(List.of("node", "--version"), Map.of(), 10).exit == 0, "Node.js is not installed");
        if (!Files.isDirectory(MODULES.resolve("node_modules/ws"))) {
            Files.createDirectories(MODULES);
            assumeTrue(run(List.of("npm", "install", "--silent", "--no-audit", "--no-fund", "--prefix",
                    MODULES.toString(), "ws@8.23.0"), Map.of(), 180).exit == 0, "npm could not install ws");
        }
        book = Files.createTempFile("addressbook", ".json");
        Files.writeString(book, "{\"folders\":[{\"path\":\"lab\",\"entries\":[{\"name\":\"web-1\",\"type\":\"ssh\","
                + "\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\"}]}]}");
        cluster = TestCluster.start(3, i -> Map.of("GW_ADDRESSBOOK_FILE", book.toString()));
        urls = cluster.nodes.stream().map(n -> "http://127.0.0.1:" + n.port()).collect(Collectors.joining(","));
        // Node-to-node connections (mutual TLS) open on first use: open them before the scripts time anything, as
        // a farm that has been up for a while has them. The scripts' thresholds are for a warm cluster.
        for (TestNode entry : cluster.nodes) {
            for (int i = 0; i < 3; i++) {
                String id = entry.sshSession().sessionId();
                entry.request("DELETE", "/api/sessions/" + id, TestNode.ADMIN, null);
            }
        }
        // And each node's tunnel, to a session held here and to one held by another node (the relay): a first
        // WebSocket compiles that path, which took one connect of the relay script past its 1 s threshold once.
        for (TestNode entry : cluster.nodes) {
            for (int i = 0; i < 3; i++) {
                org.farmgate.model.SessionInfo session = entry.sshSession();
                try (org.farmgate.testkit.client.WsClient ws = entry.attach(session)) {
                    ws.awaitInstruction("sync");
                }
                entry.request("DELETE", "/api/sessions/" + session.sessionId(), TestNode.ADMIN, null);
            }
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (book != null) {
            Files.deleteIfExists(book);
        }
    }

    @Test
    void theSessionRampPassesItsThresholds() throws Exception {
        Result result = k6("session-ramp.js", "MAX_VUS", "6", "HOLD_SECS", "3");
        assertEquals(0, result.exit, result.output);
        assertTrue(result.output.contains("✓ session_failures count==0 (0)"), result.output);
        assertTrue(result.output.matches("(?s).*ws_connect_ms\\s+avg=.*"), "tunnels were opened: " + result.output);
    }

    @Test
    void aGuacdErrorFailsTheRamp() throws Exception {
        // guacd aborts a connection to a closed port: every session ends with a guacd error.
        Result result = k6("session-ramp.js", "MAX_VUS", "3", "HOLD_SECS", "3", "TARGET_PORT", "1");
        assertEquals(99, result.exit, result.output);
        assertTrue(result.output.contains("✗ session_failures count==0"), result.output);
    }

    @Test
    void theCreationBurstPassesItsThresholds() throws Exception {
        Result result = k6("creation-burst.js", "RATE", "10");
        assertEquals(0, result.exit, result.output);
    }

    @Test
    void theAddressBookReadsPassTheirThresholds() throws Exception {
        // The cluster, the runner and the build share this machine's cores, so the limits are the other scripts' (about
        // a second): the run shows the script works and evaluates its thresholds; how fast the book is read is
        // AddressBookBenchmark's to say (bench/RESULTS.md). At 100 ms a CI run's serial p95 once came out at 128 ms.
        Result result = k6("addressbook.js", "CONCURRENCY", "4", "SERIAL_P95_MS", "1000", "CONCURRENT_P95_MS",
                "2500");
        assertEquals(0, result.exit, result.output);
        assertTrue(result.output.contains("✓ checks rate==1 (1)"), result.output);
        assertTrue(result.output.contains("✓ addressbook_ms{mode:serial} p(95)<1000")
                && result.output.contains("✓ addressbook_ms{mode:concurrent} p(95)<2500"), result.output);
    }

    @Test
    void theRelayScriptPassesItsThresholds() throws Exception {
        // Four connects make the p95 their slowest; with the build on the same cores a CI run's came out at 1044 ms once.
        Result result = k6("ws-throughput.js", "MAX_VUS", "4", "HOLD_SECS", "2", "WS_CONNECT_P95_MS", "2500");
        assertEquals(0, result.exit, result.output);
        assertTrue(result.output.contains("ws_connect_ms p(95)<2500"), result.output);
    }

    @Test
    void everyScriptLoadsWithoutTheEnvironmentAndChecksItsConfigurationInSetup() throws Exception {
        // k6 archive (the step k8s/k6-testrun.yaml asks for) evaluates the init code with no -e values.
        for (String script : List.of("session-ramp.js", "creation-burst.js", "addressbook.js", "ws-throughput.js")) {
            Result result = run(List.of("node", BENCH.resolve("k6/smoke/run.mjs").toString(),
                    BENCH.resolve("k6").resolve(script).toString(), "-e", "BASE_URL=" + urls, "-e", "QUICK=1"),
                    Map.of("K6_SMOKE_MODULES", MODULES.resolve("node_modules").toString()), 60);
            assertEquals(107, result.exit, script + ": " + result.output);
            assertTrue(result.output.contains("setup() failed") && result.output.contains("API_KEY is required"),
                    script + " must load without the environment and refuse in setup(): " + result.output);
        }
    }

    private static Result k6(String script, String... env) throws Exception {
        List<String> command = new ArrayList<>(List.of("node", BENCH.resolve("k6/smoke/run.mjs").toString(),
                BENCH.resolve("k6").resolve(script).toString(), "-e", "BASE_URL=" + urls, "-e",
                "API_KEY=" + TestNode.ADMIN, "-e", "PROTOCOL=ssh", "-e", "TARGET_PORT=22", "-e", "QUICK=1"));
        for (int i = 0; i < env.length; i += 2) {
            command.addAll(List.of("-e", env[i] + "=" + env[i + 1]));
        }
        return run(command, Map.of("K6_SMOKE_MODULES", MODULES.resolve("node_modules").toString()), 120);
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> command, Map<String, String> env, int seconds) throws Exception {
        Path out = Files.createTempFile("k6-smoke", ".log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
            builder.environment().putAll(env);
            Process process = builder.start();
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                return new Result(-1, "timed out: " + Files.readString(out, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, e.toString());
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
