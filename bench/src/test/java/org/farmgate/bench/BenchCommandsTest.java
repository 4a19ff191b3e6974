package org.farmgate.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.farmgate.bench.cluster.ClusterBenchmark;
import org.farmgate.bench.cluster.LocalClusterMain;
import org.farmgate.bench.cluster.RollingRotation;
import org.farmgate.bench.collect.MetricsCollectorMain;
import org.farmgate.bench.fault.FaultProxyMain;
import org.farmgate.bench.guacd.CostModelCheck;
import org.farmgate.bench.guacd.SyntheticGuacdMain;
import org.farmgate.bench.hostkey.HostKeyProbeBenchmark;
import org.farmgate.bench.hostkey.JumpChainBenchmark;
import org.farmgate.bench.idle.IdleSessionsBenchmark;
import org.farmgate.bench.load.LoadClientMain;
import org.farmgate.bench.plot.PlotMain;
import org.farmgate.bench.records.DbClientBenchmark;
import org.farmgate.bench.records.ReportsBenchmark;
import org.farmgate.bench.relay.RelayBenchmark;
import org.farmgate.bench.soak.HostileSoak;
import org.farmgate.bench.thumbnail.ThumbnailBenchmark;
import org.farmgate.bench.vault.AddressBookBenchmark;
import org.farmgate.bench.vault.VaultClientBenchmark;
import org.farmgate.node.TestNode;
import org.farmgate.testkit.db.TestPostgres;
import org.farmgate.testkit.process.ClusterKeys;
import org.farmgate.testkit.ssh.TestSshd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import picocli.CommandLine;

/**
 * The bench commands the documentation quotes still run as written: every one of them parses against its tool's
 * options today, and every tool runs end to end for a few seconds with small counts. The two whose shortest honest
 * run takes minutes (the rolling rotation, the soak) and the sweep against guacamole-lite (Node.js and the npm
 * registry) run here with {@code -Dfarmgate.bench.smoke=all}; the fault campaign's smoke run is FaultCampaignTest,
 * the k6 scripts' is K6ScriptsSmokeTest.
 */
class BenchCommandsTest {

    private static final Path ROOT = ClusterKeys.script().getParent().getParent();
    private static final Pattern TOOL = Pattern.compile("org\\.farmgate\\.bench\\.(?:[a-z]+\\.)+[A-Z]\\w*");

    /** A command as a document quotes it: where, which tool, and its arguments with placeholders filled in. */
    record Quoted(String where, String tool, List<String> args) {

        @Override
        public String toString() {
            return where + " " + tool.substring(tool.lastIndexOf('.') + 1) + " " + String.join(" ", args);
        }
    }

    static Stream<Quoted> quotedCommands() throws IOException {
        List<Quoted> quoted = new ArrayList<>();
        List<Path> documents;
        try (Stream<Path> files = Files.walk(ROOT)) {
            documents = files.filter(file -> file.toString().endsWith(".md"))
                    .filter(file -> !ROOT.relativize(file).toString().matches("(\\.git|.*target|.*node_modules)/.*"))
                    .sorted().toList();
        }
        for (Path document : documents) {
            String text = Files.readString(document);
            Matcher tool = TOOL.matcher(text);
            while (tool.find()) {
                String rest = text.substring(tool.end(), end(text, tool.end()));
                int line = (int) text.substring(0, tool.start()).chars().filter(c -> c == '\n').count() + 1;
                quoted.add(new Quoted(ROOT.relativize(document) + ":" + line, tool.group(), arguments(rest)));
            }
        }
        return quoted.stream();
    }

    /**
     * Where a quoted command's arguments end: inline code's closing backtick, a line's end that no backslash
     * continues, or, outside quotes, a shell operator, a comment or the parenthesis around inline code.
     */
    static int end(String text, int from) {
        char quote = 0;
        for (int i = from; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '`' || c == '\n' && text.charAt(i - 1) != '\\') {
                return i;
            } else if (quote != 0) {
                quote = c == quote ? 0 : quote;
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if ("&|;>#)".indexOf(c) >= 0) {
                return i;
            }
        }
        return text.length();
    }

    /** Shell words, with the documents' placeholders (URL1, NODE1, ..., [optional parts]) given values. */
    static List<String> arguments(String quoted) {
        String filled = quoted.replace("\\\n", " ").replace("[", "").replace("]", "")
                .replaceAll("\\bURL\\d?\\b", "http://127.0.0.1:8080").replaceAll("\\bNODE\\d\\b", "8080")
                .replaceAll("\\bOLD\\b", "old.jar").replace("...", "placeholder")
                .replaceAll("\\$[A-Z_]+\\b", "placeholder");
        List<String> words = new ArrayList<>();
        Matcher word = Pattern.compile("'([^']*)'|\"([^\"]*)\"|(\\S+)").matcher(filled);
        while (word.find()) {
            words.add(word.group(1) != null ? word.group(1) : word.group(2) != null ? word.group(2) : word.group(3));
        }
        return words;
    }

    @Test
    void theDocumentsQuoteCommands() throws IOException {
        assertTrue(quotedCommands().count() > 30, "the command finder found the documents' commands");
        String quoted = " --base-url URL1,URL2 \\\n  --token ... [--node-jar OLD] --each '^$nothing' "
                + "--title \"a (b)\" & more";
        assertEquals(List.of("--base-url", "http://127.0.0.1:8080,http://127.0.0.1:8080", "--token", "placeholder",
                "--node-jar", "old.jar", "--each", "^$nothing", "--title", "a (b)"),
                arguments(quoted.substring(0, end(quoted, 0))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("quotedCommands")
    void parsesAsWritten(Quoted command) throws Exception {
        Object tool = Class.forName(command.tool()).getDeclaredConstructor().newInstance();
        try {
            new CommandLine(tool).parseArgs(command.args().toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            fail(command.where() + ": " + e.getMessage());
        }
    }

    @Test
    void aMisspeltPhaseIsRefusedNotSkipped() {
        int usage = CommandLine.ExitCode.USAGE;
        assertEquals(usage, new CommandLine(new RelayBenchmark()).execute("--phases", "througput"));
        assertEquals(usage, new CommandLine(new ClusterBenchmark()).execute("--phases", "create", "--security",
                "secur"));
        assertEquals(usage, new CommandLine(new IdleSessionsBenchmark()).execute("--counts", "-1"));
    }

    @Test
    void relayBenchmark() {
        run(new RelayBenchmark(), "--phases", "throughput", "--rounds", "1", "--seconds", "1");
    }

    @Test
    void idleSessionsFromNone() {
        run(new IdleSessionsBenchmark(), "--counts", "0,1", "--warmup", "1");
    }

    @Test
    void clusterBenchmark() {
        run(new ClusterBenchmark(), "--phases", "create", "--security", "insecure", "--clients", "1", "--seconds",
                "1", "--warmup-seconds", "0", "--think-ms", "0", "--idle-seconds", "1");
    }

    /** What bench/scripts/haproxy-cluster.sh runs, at its smallest. */
    @Test
    void localClusterBehindHaproxy() {
        assumeTrue(onPath("haproxy"), "Debian's haproxy is not installed (apt-get install haproxy)");
        run(new LocalClusterMain(), "--nodes", "2", "--haproxy", "hint", "--check", "2", "--env",
                "GW_CLUSTER_INSECURE=true");
    }

    @Test
    void reportsBenchmarkOnAnEmbeddedDatabase() {
        run(new ReportsBenchmark(), "--db-url", "embedded", "--rows", "2000", "--repeats", "2");
    }

    @Test
    void dbClientBenchmark() {
        assumeTrue(TestPostgres.shared().isPresent(), () -> "no PostgreSQL: " + TestPostgres.whyUnavailable());
        TestPostgres server = TestPostgres.shared().get();
        String url = server.newDatabase();
        run(new DbClientBenchmark(), "--host", server.host(), "--port", String.valueOf(server.port()), "--database",
                url.substring(url.lastIndexOf('/') + 1), "--user", server.user(), "--rows", "20", "--batch", "10",
                "--rounds", "1");
    }

    @Test
    void hostKeyProbeBenchmark() {
        assumeTrue(TestSshd.isInstalled(), "Debian's openssh-server is not installed");
        run(new HostKeyProbeBenchmark(), "--probes", "3", "--warmup", "1");
    }

    @Test
    void jumpChainBenchmark() {
        assumeTrue(TestSshd.isInstalled(), "Debian's openssh-server is not installed");
        run(new JumpChainBenchmark(), "--connects", "2", "--warmup", "1", "--max-hops", "2");
    }

    @Test
    void vaultClientBenchmark() {
        run(new VaultClientBenchmark(), "--entries", "21", "--trials", "1", "--latency-ms", "0");
    }

    @Test
    void thumbnailBenchmark() {
        run(new ThumbnailBenchmark(), "--sessions", "2", "--seconds", "1", "--rounds", "1");
    }

    @Test
    void addressBookBenchmark() {
        run(new AddressBookBenchmark(), "--sizes", "1", "--warm-requests", "1", "--warm-up", "1", "--latency-ms", "0");
    }

    /** A real guacd and a real console only: FARMGATE_REAL_GUACD=host:port and Debian's sshd on 127.0.0.1:22. */
    @Test
    void costModelCheckAgainstARealGuacd() {
        String guacd = System.getenv("FARMGATE_REAL_GUACD");
        assumeTrue(guacd != null, "no real guacd (FARMGATE_REAL_GUACD=host:port; bench/scripts/guacd-targets)");
        run(new CostModelCheck(), "--guacd", guacd, "--protocols", "ssh", "--displays", "1024x768", "--counts", "1",
                "--activities", "idle", "--settle-secs", "1", "--after-secs", "5");
    }

    @Test
    void loadClientAgainstANode(@TempDir Path dir) throws Exception {
        try (TestNode node = TestNode.start()) {
            run(new LoadClientMain(), "--base-url", "http://127.0.0.1:" + node.port(), "--token", TestNode.ADMIN,
                    "--sessions", "1", "--ramp-secs", "0", "--hold-secs", "1", "--grace-secs", "10", "--json",
                    dir.resolve("load.json").toString());
            assertTrue(Files.readString(dir.resolve("load.json")).contains("\"sessions\""));
        }
    }

    @Test
    void metricsCollectedThenPlotted(@TempDir Path dir) throws IOException {
        Path csv = dir.resolve("metrics.csv");
        run(new MetricsCollectorMain(), "--seconds", "1", "--interval-ms", "100", "--each", "surefire", "--out",
                csv.toString());
        assertTrue(Files.readAllLines(csv).size() > 1, "a sample of this JVM");
        Path png = dir.resolve("metrics.png");
        run(new PlotMain(), "--csv", csv.toString(), "--x", "time_s", "--y", "rss_mb", "--series", "label", "--out",
                png.toString());
        assertTrue(Files.size(png) > 0);
    }

    @Test
    void placementBenchmark() throws Exception {
        assertFalse(new Runner(new OptionsBuilder().include("PlacementBenchmark").param("nodes", "10").forks(0)
                .warmupIterations(0).measurementIterations(1).measurementTime(TimeValue.milliseconds(100)).build())
                .run().isEmpty());
    }

    @Test
    void sealBenchmark() throws Exception {
        assertFalse(new Runner(new OptionsBuilder().include("SealBenchmark").param("record", "node-20").forks(0)
                .warmupIterations(0).measurementIterations(1).measurementTime(TimeValue.milliseconds(100)).build())
                .run().isEmpty());
    }

    /** Both tools that run until Ctrl-C, as a user starts them: a guacd, and a fault proxy in front of it. */
    @Test
    void syntheticGuacdBehindTheFaultProxy() throws Exception {
        Process guacd = java(SyntheticGuacdMain.class, "--port", "0");
        Process proxy = null;
        try {
            int guacdPort = port(guacd, "synthetic guacd listening on ");
            proxy = java(FaultProxyMain.class, "--target", "127.0.0.1:" + guacdPort, "--latency-ms", "5");
            int proxyPort = port(proxy, "fault proxy on ");
            try (Socket socket = new Socket("127.0.0.1", proxyPort)) {
                OutputStream out = socket.getOutputStream();
                out.write("6.select,3.ssh;".getBytes(StandardCharsets.UTF_8));
                out.flush();
                byte[] answer = new byte[7];
                socket.setSoTimeout(10_000);
                socket.getInputStream().readNBytes(answer, 0, answer.length);
                assertEquals("4.args,", new String(answer, StandardCharsets.UTF_8), "guacd answered through the proxy");
            }
        } finally {
            stop(proxy);
            stop(guacd);
        }
    }

    @Test
    void rollingRotation() {
        assumeTrue(all(), "minutes long: -Dfarmgate.bench.smoke=all runs it");
        run(new RollingRotation(), "--nodes", "2");
    }

    @Test
    void hostileSoak(@TempDir Path dir) {
        assumeTrue(all(), "minutes long: -Dfarmgate.bench.smoke=all runs it");
        run(new HostileSoak(), "--minutes", "1", "--sessions", "2", "--label", "smoke", "--out", dir.toString());
    }

    /** What bench/scripts/guacamole-lite.sh installs, then the sweep against it. */
    @Test
    void sweepAgainstGuacamoleLite(@TempDir Path dir) throws Exception {
        assumeTrue(all(), "needs Node.js and the npm registry: -Dfarmgate.bench.smoke=all runs it");
        Process install = new ProcessBuilder(ROOT.resolve("bench/scripts/guacamole-lite.sh").toString())
                .inheritIO().start();
        assertTrue(install.waitFor(120, TimeUnit.SECONDS) && install.exitValue() == 0, "guacamole-lite.sh");
        run(new RelayBenchmark(), "--phases", "sweep", "--levels", "1", "--seconds", "1", "--out-dir",
                dir.toString());
    }

    private static boolean all() {
        return "all".equals(System.getProperty("farmgate.bench.smoke"));
    }

    private static void run(Object tool, String... args) {
        assertEquals(0, new CommandLine(tool).execute(args), () -> tool.getClass().getSimpleName() + " "
                + String.join(" ", args) + " failed: see its output above");
    }

    private static boolean onPath(String command) {
        return Stream.of(System.getenv("PATH").split(":")).anyMatch(dir -> Files.isExecutable(Path.of(dir, command)));
    }

    private static Process java(Class<?> main, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /** The port a tool's first line of that kind names; its output goes on to this test's. */
    private static int port(Process tool, String prefix) throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(tool.getInputStream(), StandardCharsets.UTF_8));
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
            System.out.println(line);
            if (line.startsWith(prefix)) {
                Matcher port = Pattern.compile(":(\\d+)").matcher(line.substring(prefix.length()));
                assertTrue(port.find(), line);
                return Integer.parseInt(port.group(1));
            }
        }
        throw new AssertionError("the tool ended before saying " + prefix + ": exit "
                + tool.onExit().join().exitValue());
    }

    private static void stop(Process tool) throws InterruptedException {
        if (tool != null) {
            tool.destroy(); // SIGTERM, as Ctrl-C: the tools close Vert.x in a shutdown hook
            if (!tool.waitFor(10, TimeUnit.SECONDS)) {
                tool.destroyForcibly().waitFor();
            }
        }
    }
}
