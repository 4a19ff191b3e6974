package org.farmgate.bench.relay;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.NetSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVPrinter;
import org.farmgate.bench.Choices;
import org.farmgate.bench.Csv;
import org.farmgate.bench.Stats;
import org.farmgate.bench.client.DirectGuacd;
import org.farmgate.bench.node.CpuClock;
import org.farmgate.bench.node.GuacamoleLiteProcess;
import org.farmgate.bench.node.ProcessProbe;
import org.farmgate.bench.node.TcpProxyProcess;
import org.farmgate.bench.plot.LineChart;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.client.StreamReader;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * Relay throughput and latency of one node, side by side with a client reading the same synthetic guacd directly,
 * in the same run: rounds alternate between the two so that the machine's noise hits both alike.
 *
 * <p>Throughput: guacd streams image frames back to back, the client frames every byte into instructions.
 * Latency: guacd sends a small frame every 20 ms and times the client's {@code sync} answer, as guacd does.
 *
 * <p>{@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.relay.RelayBenchmark
 * [--node-jar PATH] [--rounds N] [--seconds S] [--frame-bytes B] [--sessions N]
 * [--phases throughput,latency,concurrent,sweep,recording] [--levels 10,25,50,100,200]
 * [--out-dir bench/target/results] [--guacd-port P --session JSON] [--warmup-seconds S]}
 *
 * <p>The recording phase runs through a synthetic guacd, or with {@code --guacd-port} through a real one to the
 * console {@code --session} names, its processes' CPU counted with the node's (the host's cost).
 *
 * <p>The sweep phase sets latency against concurrency for three paths to the same guacd: direct, through the node,
 * and through guacamole-lite (when {@code bench/scripts/guacamole-lite.sh} has installed it), and draws it.
 */
@Command(name = "relay", mixinStandardHelpOptions = true, description = "Relay throughput and latency of one node.")
public final class RelayBenchmark implements Callable<Integer> {

    private static final String TOKEN = "bench-admin-token-0123456789abcdef";
    private static final String SESSION = "{\"hostname\":\"127.0.0.1\",\"username\":\"bench\",\"password\":\"bench\"}";

    @Option(names = "--node-jar", paramLabel = "PATH", description = "the node jar; default: this JVM's class path")
    private String nodeJar;
    @Option(names = "--rounds", defaultValue = "5", description = "rounds per phase")
    private int rounds;
    @Option(names = "--seconds", defaultValue = "5", description = "measuring time per round and path")
    private int seconds;
    @Option(names = "--frame-bytes", defaultValue = "48384", description = "bytes per frame: 8 guacd blobs of 6048")
    private int frameBytes;
    @Option(names = "--sessions", defaultValue = "100", description = "sessions of the concurrent phase")
    private int sessions;
    @Option(names = "--phases", defaultValue = "throughput,latency,concurrent", split = ",",
            description = "which of throughput, latency, concurrent, sweep and recording to run")
    private List<String> phases;
    @Option(names = "--levels", defaultValue = "10,25,50,100,200", split = "\\s*,\\s*", description = "sweep sizes")
    private List<Integer> levels;
    @Option(names = "--out-dir", defaultValue = "bench/target/results", description = "for the sweep's CSV and PNG")
    private Path outDir;
    @Option(names = "--guacd-port", defaultValue = "0", description = "the recording phase through a real guacd on "
            + "this loopback port (its processes' CPU counted with the node's: the host's cost); 0: a synthetic one")
    private int realGuacdPort;
    @Option(names = "--session", defaultValue = SESSION, description = "the recording phase's session (the body of "
            + "POST /api/sessions): with a real guacd, a real console")
    private String session;
    @Option(names = "--warmup-seconds", defaultValue = "0", description = "the recording phase: load on each node "
            + "before the first round, unmeasured (its JIT compiles then, not in a window)")
    private int warmupSeconds;

    /**
     * guacd's side and the client's side on separate event loops, as they would be in separate processes; made by
     * {@link #call()}, so that parsing the options starts no thread.
     */
    private Vertx vertx;
    private Vertx clients;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayBenchmark()).execute(args));
    }

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Choices.require(spec, "--phases", phases, List.of("throughput", "latency", "concurrent", "sweep",
                "recording"));
        NodeProcess.Launch jar = NodeProcess.Launch.jarOrOwnClassPath(nodeJar);
        vertx = Vertx.vertx();
        clients = Vertx.vertx();
        try {
            if (phases.contains("throughput")) {
                throughput(jar);
            }
            if (phases.contains("latency")) {
                latency(jar);
            }
            if (phases.contains("concurrent")) {
                concurrent(jar);
            }
            if (phases.contains("sweep")) {
                sweep(jar);
            }
            if (phases.contains("recording")) {
                recording(jar);
            }
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
            clients.close().await(10, TimeUnit.SECONDS);
        }
        return 0;
    }

    private void throughput(NodeProcess.Launch jar) throws Exception {
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, "127.0.0.1", 0,
                new SyntheticGuacdOptions().flood(frameBytes).idleTimeout(Duration.ZERO), false)
                .await(10, TimeUnit.SECONDS);
        try (NodeProcess node = startNode(jar, guacd.port()); TcpProxyProcess proxy = proxy(guacd.port())) {
            System.out.printf("%nThroughput: guacd floods %d-byte image frames for %d s per round%n", frameBytes,
                    seconds);
            System.out.printf("%-6s %14s %14s %14s %8s %16s %18s %16s%n", "round", "direct MB/s", "haproxy MB/s",
                    "relay MB/s", "ratio", "node CPU ms/MB", "haproxy CPU ms/MB", "bench CPU ms/MB");
            double[] direct = new double[rounds];
            double[] proxied = new double[rounds];
            double[] relay = new double[rounds];
            double[] relayCpu = new double[rounds];
            double[] proxyCpu = new double[rounds];
            measureDirect(guacd.port(), 1, null); // warm-up both paths, unreported
            measureRelay(node, 1, null);
            for (int r = 0; r < rounds; r++) {
                direct[r] = measureDirect(guacd.port(), seconds, null).megabytesPerSecond();
                Window viaProxy = proxy == null ? null
                        : measureMany(1, seconds, proxy.pid(), () -> openDirect(proxy.port(), false));
                proxied[r] = viaProxy == null ? Double.NaN : viaProxy.megabytesPerSecond();
                proxyCpu[r] = viaProxy == null ? Double.NaN : viaProxy.nodeCpuPerMegabyte();
                Window window = measureRelay(node, seconds, null);
                relay[r] = window.megabytesPerSecond();
                relayCpu[r] = window.nodeCpuPerMegabyte();
                System.out.printf(Locale.ROOT, "%-6d %14.1f %14.1f %14.1f %7.1f%% %16.2f %18.2f %16.2f%n", r + 1,
                        direct[r], proxied[r], relay[r], 100 * relay[r] / direct[r], relayCpu[r], proxyCpu[r],
                        window.benchCpuPerMegabyte());
            }
            double d = Stats.median(direct);
            double m = Stats.median(relay);
            System.out.printf(Locale.ROOT, "%-6s %14.1f %14.1f %14.1f %7.1f%% %16.2f %18.2f%n", "median", d,
                    Stats.median(proxied), m, 100 * m / d, Stats.median(relayCpu), Stats.median(proxyCpu));
        } finally {
            guacd.close().await(10, TimeUnit.SECONDS);
        }
    }

    private void latency(NodeProcess.Launch jar) throws Exception {
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, "127.0.0.1", 0,
                new SyntheticGuacdOptions().stream(Duration.ofMillis(20), 2048), false).await(10, TimeUnit.SECONDS);
        try (NodeProcess node = startNode(jar, guacd.port()); TcpProxyProcess proxy = proxy(guacd.port())) {
            System.out.printf("%nLatency: a 2 KB frame every 20 ms; time from guacd's sync to the client's answer%n");
            System.out.printf("%-6s %10s %10s %10s %12s %10s %10s %10s%n", "round", "direct p50", "p95", "p99",
                    "haproxy p50", "relay p50", "p95", "p99");
            double[] proxyP50 = new double[rounds];
            double[] directP50 = new double[rounds];
            double[] relayP50 = new double[rounds];
            double[] directP99 = new double[rounds];
            double[] relayP99 = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                guacd.syncRoundTrips().drainSorted();
                measureDirect(guacd.port(), seconds, guacd);
                long[] d = guacd.syncRoundTrips().drainSorted();
                if (proxy != null) {
                    measureDirect(proxy.port(), seconds, guacd);
                }
                long[] p = guacd.syncRoundTrips().drainSorted();
                proxyP50[r] = us(Stats.percentile(p, 50));
                measureRelay(node, seconds, guacd);
                long[] m = guacd.syncRoundTrips().drainSorted();
                directP50[r] = us(Stats.percentile(d, 50));
                relayP50[r] = us(Stats.percentile(m, 50));
                directP99[r] = us(Stats.percentile(d, 99));
                relayP99[r] = us(Stats.percentile(m, 99));
                System.out.printf(Locale.ROOT, "%-6d %8.0fus %8.0fus %8.0fus %10.0fus %8.0fus %8.0fus %8.0fus%n",
                        r + 1, directP50[r], us(Stats.percentile(d, 95)), directP99[r], proxyP50[r], relayP50[r],
                        us(Stats.percentile(m, 95)), relayP99[r]);
            }
            System.out.printf(Locale.ROOT, "median p50: direct %.0f us, haproxy %.0f us, relay %.0f us; median p99: "
                    + "direct %.0f us, relay %.0f us%n", Stats.median(directP50), Stats.median(proxyP50),
                    Stats.median(relayP50), Stats.median(directP99), Stats.median(relayP99));
        } finally {
            guacd.close().await(10, TimeUnit.SECONDS);
        }
    }

    /**
     * Many sessions at a realistic pace: each gets a 16 KB frame every 50 ms (320 KB/s, about twice what an active
     * RDP or SSH session was measured to send), every client answering every sync.
     */
    private void concurrent(NodeProcess.Launch jar) throws Exception {
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, "127.0.0.1", 0,
                new SyntheticGuacdOptions().stream(Duration.ofMillis(50), 16 * 1024), false)
                .await(10, TimeUnit.SECONDS);
        try (NodeProcess node = startNode(jar, guacd.port())) {
            System.out.printf("%n%d concurrent sessions, each a 16 KB frame every 50 ms, syncs answered%n", sessions);
            System.out.printf("%-6s %12s %12s %8s %12s %12s %12s %12s %14s%n", "round", "direct MB/s", "relay MB/s",
                    "ratio", "direct p50", "direct p99", "relay p50", "relay p99", "node CPU %");
            double[] ratio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                guacd.syncRoundTrips().drainSorted();
                double direct = measureMany(sessions, seconds, -1, () -> openDirect(guacd.port(), true))
                        .megabytesPerSecond();
                long[] d = guacd.syncRoundTrips().drainSorted();
                Window window = measureMany(sessions, seconds, node.pid(), () -> openRelay(node, true));
                double relay = window.megabytesPerSecond();
                double cpu = window.nodeCpuPercent();
                long[] m = guacd.syncRoundTrips().drainSorted();
                ratio[r] = 100 * relay / direct;
                System.out.printf(Locale.ROOT, "%-6d %12.1f %12.1f %7.1f%% %10.0fus %10.0fus %10.0fus %10.0fus %13.0f%%%n",
                        r + 1, direct, relay, ratio[r], us(Stats.percentile(d, 50)), us(Stats.percentile(d, 99)),
                        us(Stats.percentile(m, 50)), us(Stats.percentile(m, 99)), cpu);
            }
            System.out.printf(Locale.ROOT, "median ratio %.1f%%%n", Stats.median(ratio));
        } finally {
            guacd.close().await(10, TimeUnit.SECONDS);
        }
    }

    /**
     * What recording every session costs: the realistic load of {@link #concurrent} on two nodes side by side, one
     * recording every session with its keys (to a directory on this machine's disk: the spool, then the recording),
     * one not; each round measures both, each first in every other round. Node CPU and delivered MB/s over the window, and the node's
     * RSS and heap at its end, with every session still open.
     */
    private void recording(NodeProcess.Launch jar) throws Exception {
        SyntheticGuacd synthetic = realGuacdPort > 0 ? null : SyntheticGuacd.start(vertx, "127.0.0.1", 0,
                new SyntheticGuacdOptions().stream(Duration.ofMillis(50), 16 * 1024), false)
                .await(10, TimeUnit.SECONDS);
        int guacdPort = synthetic == null ? realGuacdPort : synthetic.port();
        Path plainData = Files.createTempDirectory("farmgate-bench-plain");
        Path recordedData = Files.createTempDirectory("farmgate-bench-recorded");
        // two nodes alone, side by side: each a member port of its own; a session ends with its client (startNode)
        try (NodeProcess plain = startNode(jar, guacdPort, Map.of("GW_DATA_DIR", plainData.toString(),
                "GW_CLUSTER_PORT", String.valueOf(NodeProcess.freePort()), "GW_EVENTBUS_PORT", "0",
                "GW_RELAY_PORT", "0"));
                NodeProcess recorded = startNode(jar, guacdPort, Map.of("GW_DATA_DIR", recordedData.toString(),
                        "GW_CLUSTER_PORT", String.valueOf(NodeProcess.freePort()), "GW_EVENTBUS_PORT", "0",
                        "GW_RELAY_PORT", "0", "GW_RECORDING", "all",
                        "GW_RECORDING_KEYS", "true"))) {
            System.out.printf("%n%d sessions (%s), syncs answered: recording off and on%n", sessions,
                    synthetic == null ? "a real guacd on port " + guacdPort + ": " + session
                            : "each a 16 KB frame every 50 ms");
            for (NodeProcess node : warmupSeconds > 0 ? List.of(plain, recorded) : List.<NodeProcess>of()) {
                measureMany(sessions, warmupSeconds, -1, () -> openRelay(node, true, session));
                finished(recorded);
            }
            System.out.printf("%-6s %-10s %10s %11s %11s %11s %8s %8s%n", "round", "recording", "MB/s", "node CPU %",
                    "guacd CPU %", "host CPU %", "RSS MB", "heap MB");
            double[][] cpu = new double[2][rounds];
            double[][] host = new double[2][rounds];
            double[][] rss = new double[2][rounds];
            for (int r = 0; r < rounds; r++) {
                for (int turn = 0; turn < 2; turn++) {
                    int which = (r + turn) % 2; // each goes first in every other round
                    NodeProcess node = which == 0 ? plain : recorded;
                    ProcessProbe.Reading[] memory = new ProcessProbe.Reading[1];
                    Window window = measureMany(sessions, seconds, node.pid(), () -> openRelay(node, true, session),
                            () -> memory[0] = ProcessProbe.read(node.pid()));
                    cpu[which][r] = window.nodeCpuPercent();
                    host[which][r] = window.nodeCpuPercent() + window.guacdCpuPercent();
                    rss[which][r] = memory[0].rssKb() / 1024.0;
                    System.out.printf(Locale.ROOT, "%-6d %-10s %10.2f %11.1f %11.1f %11.1f %8.0f %8.0f%n", r + 1,
                            which == 0 ? "off" : "on", window.megabytesPerSecond(), cpu[which][r],
                            window.guacdCpuPercent(), host[which][r], rss[which][r], memory[0].heapUsedKb() / 1024.0);
                    if (which == 1) {
                        finished(recorded); // the ended sessions' last parts go up before the next window
                    }
                }
            }
            System.out.printf(Locale.ROOT, "median node CPU %.1f%% off, %.1f%% on (%+.1f%%); host (node and guacd) "
                    + "%.1f%% off, %.1f%% on (%+.1f%%); median RSS %.0f MB off, %.0f MB on (%+.1f MB per recorded "
                    + "session)%n", Stats.median(cpu[0]), Stats.median(cpu[1]),
                    100 * (Stats.median(cpu[1]) / Stats.median(cpu[0]) - 1), Stats.median(host[0]),
                    Stats.median(host[1]), 100 * (Stats.median(host[1]) / Stats.median(host[0]) - 1),
                    Stats.median(rss[0]), Stats.median(rss[1]), (Stats.median(rss[1]) - Stats.median(rss[0]))
                            / sessions);
        } finally {
            if (synthetic != null) {
                synthetic.close().await(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Waits (up to a minute) until the node has no recording left to finish, as its metrics say. */
    private static void finished(NodeProcess node) throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            String metrics = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(node.baseUrl()
                    + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
            if (metrics.lines().anyMatch(line -> line.startsWith("farmgate_recordings_active ")
                    && Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) == 0)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the node's recordings did not finish within a minute");
    }

    /**
     * Latency against concurrency, at the realistic pace of {@link #concurrent}: at each level the same number of
     * sessions direct, through the node and through guacamole-lite, one after the other; guacd times every sync.
     */
    private void sweep(NodeProcess.Launch jar) throws Exception {
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, "127.0.0.1", 0,
                new SyntheticGuacdOptions().stream(Duration.ofMillis(50), 16 * 1024), false)
                .await(10, TimeUnit.SECONDS);
        Files.createDirectories(outDir);
        try (NodeProcess node = startNode(jar, guacd.port());
                GuacamoleLiteProcess lite = GuacamoleLiteProcess.isInstalled()
                        ? GuacamoleLiteProcess.start(guacd.port()) : null) {
            System.out.printf("%nLatency against concurrency: each session a 16 KB frame every 50 ms, syncs answered"
                    + "%s%n", lite == null ? " (guacamole-lite not installed: bench/scripts/guacamole-lite.sh)" : "");
            System.out.printf("%-9s %-15s %10s %12s %12s %12s %12s%n", "sessions", "path", "MB/s", "sync p50 ms",
                    "sync p95 ms", "sync p99 ms", "relay CPU %");
            Map<String, List<double[]>> p95 = new java.util.LinkedHashMap<>();
            measureMany(10, 3, -1, () -> openRelay(node, true)); // warm-up of the node's JIT, unreported
            if (lite != null) {
                measureMany(10, 3, -1, () -> openLite(lite, true));
            }
            try (CSVPrinter csv = Csv.write(outDir.resolve("latency-sweep.csv"), "sessions", "path", "mb_per_s",
                    "sync_p50_ms", "sync_p95_ms", "sync_p99_ms", "relay_cpu_pct")) {
                for (int level : levels) {
                    Map<String, Opener> paths = new java.util.LinkedHashMap<>();
                    paths.put("direct", () -> openDirect(guacd.port(), true));
                    paths.put("farmgate", () -> openRelay(node, true));
                    if (lite != null) {
                        paths.put("guacamole-lite", () -> openLite(lite, true));
                    }
                    for (Map.Entry<String, Opener> path : paths.entrySet()) {
                        long pid = path.getKey().equals("farmgate") ? node.pid()
                                : path.getKey().equals("guacamole-lite") ? lite.pid() : -1;
                        guacd.syncRoundTrips().drainSorted();
                        Window window = measureMany(level, seconds, pid, path.getValue());
                        long[] syncs = guacd.syncRoundTrips().drainSorted();
                        List<String> cells = List.of(String.valueOf(level), path.getKey(),
                                String.format(Locale.ROOT, "%.2f", window.megabytesPerSecond()), ms(syncs, 50),
                                ms(syncs, 95), ms(syncs, 99),
                                String.format(Locale.ROOT, "%.1f", pid < 0 ? 0 : window.nodeCpuPercent()));
                        csv.printRecord(cells);
                        System.out.printf("%-9s %-15s %10s %12s %12s %12s %12s%n", cells.toArray());
                        p95.computeIfAbsent(path.getKey(), k -> new java.util.ArrayList<>())
                                .add(new double[] {level, Double.parseDouble(cells.get(4))});
                    }
                }
            }
            LineChart chart = new LineChart("Sync round trip p95 against concurrent sessions",
                    "concurrent sessions (16 KB every 50 ms each)", "sync p95 (ms)");
            p95.forEach((name, points) -> chart.add(new LineChart.Series(name, points)));
            chart.write(outDir.resolve("latency-sweep.png"));
            System.out.println("wrote " + outDir.resolve("latency-sweep.csv") + " and latency-sweep.png");
        } finally {
            guacd.close().await(10, TimeUnit.SECONDS);
        }
    }

    private Stream openLite(GuacamoleLiteProcess lite, boolean answer) throws Exception {
        return openWebSocket(lite.port(), lite.path("ssh", Map.of("hostname", "127.0.0.1", "port", "22", "username",
                "bench", "password", "bench", "width", 1024, "height", 768, "dpi", 96)), answer);
    }

    /** An open stream: what reads it, and how to close it. */
    private record Stream(StreamReader reader, Closer closer) {

        long bytes() {
            return reader.bytes();
        }

        void close() throws Exception {
            closer.close();
        }
    }

    @FunctionalInterface
    private interface Closer {
        void close() throws Exception;
    }

    @FunctionalInterface
    private interface Opener {
        Stream open() throws Exception;
    }

    /** What one measuring window saw: bytes read, and CPU used by the node and by this process meanwhile. */
    private record Window(long bytes, long nodeCpuMs, long benchCpuMs, long guacdCpuMs, long millis) {

        double megabytesPerSecond() {
            return bytes / 1e6 / (millis / 1000.0);
        }

        double nodeCpuPerMegabyte() {
            return nodeCpuMs / (bytes / 1e6);
        }

        double benchCpuPerMegabyte() {
            return benchCpuMs / (bytes / 1e6);
        }

        double nodeCpuPercent() {
            return 100.0 * nodeCpuMs / millis;
        }

        /** What every process named guacd took: a real guacd's main process and its connections'. */
        double guacdCpuPercent() {
            return 100.0 * guacdCpuMs / millis;
        }
    }

    /**
     * Opens {@code count} streams, lets them pass their first screen, then measures for {@code seconds}.
     *
     * @param nodePid the node whose CPU to account, or -1
     */
    private static Window measureMany(int count, int seconds, long nodePid, Opener opener) throws Exception {
        return measureMany(count, seconds, nodePid, opener, null);
    }

    /** @param atEnd run at the window's end, every stream still open (a memory reading); null for none */
    private static Window measureMany(int count, int seconds, long nodePid, Opener opener, AtEnd atEnd)
            throws Exception {
        java.util.List<Stream> streams = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                streams.add(opener.open());
            }
            Thread.sleep(1000);
            long nodeCpu = nodePid < 0 ? 0 : CpuClock.cpuMillis(nodePid);
            long benchCpu = CpuClock.selfCpuMillis();
            long guacdCpu = CpuClock.cpuMillisOf("guacd");
            long start = System.nanoTime();
            long before = streams.stream().mapToLong(Stream::bytes).sum();
            Thread.sleep(seconds * 1000L);
            long bytes = streams.stream().mapToLong(Stream::bytes).sum() - before;
            long millis = (System.nanoTime() - start) / 1_000_000;
            long nodeCpuMs = nodePid < 0 ? 0 : CpuClock.cpuMillis(nodePid) - nodeCpu;
            long benchCpuMs = CpuClock.selfCpuMillis() - benchCpu;
            long guacdCpuMs = CpuClock.cpuMillisOf("guacd") - guacdCpu;
            if (atEnd != null) {
                atEnd.run();
            }
            return new Window(bytes, nodeCpuMs, benchCpuMs, guacdCpuMs, millis);
        } finally {
            for (Stream stream : streams) {
                stream.close();
            }
        }
    }

    private Stream openDirect(int guacdPort, boolean answer) throws Exception {
        DirectGuacd.Connected connected = DirectGuacd.connect(clients, "127.0.0.1", guacdPort, "ssh",
                Map.of("hostname", "127.0.0.1", "port", "22", "username", "bench", "password", "bench"))
                .await(30, TimeUnit.SECONDS);
        NetSocket socket = connected.socket();
        StreamReader reader = new StreamReader(answer ? socket::write : null);
        socket.handler(reader::accept);
        reader.accept(connected.rest());
        socket.resume();
        return new Stream(reader, () -> socket.close().await(10, TimeUnit.SECONDS));
    }

    private Stream openRelay(NodeProcess node, boolean answer) throws Exception {
        return openRelay(node, answer, SESSION);
    }

    private Stream openRelay(NodeProcess node, boolean answer, String body) throws Exception {
        GatewayApi.Attach attach = new GatewayApi(node.baseUrl(), TOKEN).createSession(body);
        return openWebSocket(node.httpPort(), attach.wsPath(), answer);
    }

    /** A Guacamole tunnel over WebSocket on loopback, read (and its syncs answered, if asked) as a client does. */
    private Stream openWebSocket(int port, String uri, boolean answer) throws Exception {
        WebSocketClient client = clients.createWebSocketClient();
        WebSocket socket = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                .setURI(uri).addSubProtocol("guacamole")).await(10, TimeUnit.SECONDS);
        StreamReader reader = new StreamReader(answer ? socket::writeTextMessage : null);
        socket.handler(reader::accept);
        return new Stream(reader, () -> {
            socket.close().await(10, TimeUnit.SECONDS);
            client.close();
        });
    }

    private static TcpProxyProcess proxy(int port) throws Exception {
        return TcpProxyProcess.isAvailable() ? TcpProxyProcess.start(port) : null;
    }

    private static double us(long nanos) {
        return nanos / 1000.0;
    }

    /** The sweep's figure: a percentile of the syncs' round trips, in milliseconds, as printed and written. */
    private static String ms(long[] syncs, double p) {
        return String.format(Locale.ROOT, "%.3f", Stats.percentile(syncs, p) / 1e6);
    }

    /** One stream read directly from guacd; answering syncs when {@code answering} is set. */
    private Window measureDirect(int guacdPort, int seconds, SyntheticGuacd answering) throws Exception {
        return measureMany(1, seconds, -1, () -> openDirect(guacdPort, answering != null));
    }

    private Window measureRelay(NodeProcess node, int seconds, SyntheticGuacd answering) throws Exception {
        return measureMany(1, seconds, node.pid(), () -> openRelay(node, answering != null));
    }

    private static NodeProcess startNode(NodeProcess.Launch jar, int guacdPort) throws Exception {
        return startNode(jar, guacdPort, Map.of());
    }

    /**
     * A node whose sessions end with their clients. With the default grace a session's guacd connection stays open
     * for a minute after its client leaves, held by an anchor that reads and answers it as a client would; against a
     * guacd that floods whatever is answered, every earlier window's session kept the node busy through the next
     * windows (its anchors took 90 % of the node's relaying samples in a JFR recording, and each round ran slower
     * than the one before). A window measures its own sessions only.
     */
    private static NodeProcess startNode(NodeProcess.Launch jar, int guacdPort, Map<String, String> more)
            throws Exception {
        Path log = Files.createTempFile("farmgate-bench-node", ".log");
        List<String> jvm = List.of("-Xmx512m");
        Map<String, String> env = new java.util.HashMap<>(Map.of("GW_ADMIN_TOKEN", TOKEN, "GW_GUACD_PORT",
                String.valueOf(guacdPort), "GW_NODE_ID", "bench", "GW_LOG_LEVEL", "WARN", "GW_MAX_SESSIONS", "5000",
                "GW_MAX_SESSIONS_PER_USER", "5000", "GW_MAX_MEMORY_MB_PER_USER", "10000000",
                "GW_REATTACH_GRACE_SECS", "0"));
        env.putAll(more);
        return NodeProcess.start(jar, env, jvm, log);
    }

    /** What a window runs at its end. */
    @FunctionalInterface
    private interface AtEnd {
        void run() throws Exception;
    }
}
