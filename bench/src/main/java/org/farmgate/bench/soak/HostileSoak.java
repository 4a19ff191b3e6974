package org.farmgate.bench.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.farmgate.bench.cluster.LocalCluster;
import org.farmgate.bench.load.LoadOptions;
import org.farmgate.bench.load.LoadReport;
import org.farmgate.bench.load.LoadRun;
import org.farmgate.bench.node.ProcessProbe;
import org.farmgate.bench.plot.LineChart;
import org.farmgate.model.Json;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Protocol;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The soak of issue 12: well-behaved sessions stream through a three-node cluster for a long while, with or without
 * hostile clients beside them ({@link Hostiles}). Node memory (RSS, heap after a full GC) is sampled every 30 s;
 * the well-behaved sessions' input round trip (a key press until the {@code sync} after its echo) and tunnel ping
 * are measured; failures and 5xx are counted.
 *
 * <p>{@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.soak.HostileSoak --minutes 30
 * --sessions 200 --label hostile} and again with {@code --no-hostiles --label calm}; results into bench/results.
 */
@Command(name = "hostile-soak", mixinStandardHelpOptions = true)
public final class HostileSoak implements Callable<Integer> {

    @Option(names = "--minutes", defaultValue = "30", description = "how long the sessions stream")
    private int minutes;
    @Option(names = "--sessions", defaultValue = "200", description = "well-behaved sessions")
    private int sessions;
    @Option(names = "--hostiles", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "run the hostile clients beside them (default; --no-hostiles for the calm run)")
    private boolean hostiles;
    @Option(names = "--label", defaultValue = "hostile", description = "names the result files")
    private String label;
    @Option(names = "--node-jar", description = "the node jar; default: this JVM's class path")
    private String nodeJar;
    @Option(names = "--out", defaultValue = "bench/results", description = "where results go")
    private Path out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new HostileSoak()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Files.createDirectories(out);
        Map<String, String> env = Map.of("GW_MAX_SESSIONS_PER_USER", "1000", "GW_MAX_MEMORY_MB_PER_USER", "10000000",
                "GW_MEMORY_BUDGET_MB", "100000", "GW_COST_SSH_MB", "1");
        SyntheticGuacdOptions guacd = new SyntheticGuacdOptions().stream(Duration.ofMillis(100), 1500).echoKeys(true);
        try (LocalCluster cluster = LocalCluster.start(NodeProcess.Launch.jarOrOwnClassPath(nodeJar), 3, null, guacd,
                LocalCluster.Balancing.NONE, env)) {
            List<NodeProcess> nodes = cluster.nodes();
            Duration ramp = Duration.ofSeconds(Math.min(60, minutes * 60L / 4));
            LoadOptions options = new LoadOptions(nodes.stream().map(NodeProcess::baseUrl).toList(), LocalCluster.TOKEN,
                    Protocol.SSH, "127.0.0.1", 22, "bench", "bench", DisplaySize.DEFAULT, Map.of(), sessions, ramp,
                    Duration.ofMinutes(minutes).minus(ramp), 5, 2, 1, Duration.ofSeconds(60),
                    out.resolve("soak-" + label + "-sessions.csv").toString(), null);
            LoadRun.Background load = LoadRun.inBackground(options, "soak-load");
            List<String[]> samples = new ArrayList<>();
            long begin = System.nanoTime();
            Hostiles hostile = new Hostiles(nodes, LocalCluster.TOKEN);
            try {
                Thread.sleep(ramp.toMillis());
                if (hostiles) {
                    hostile.start();
                }
                while (load.running()) {
                    sample(nodes, begin, samples);
                    load.await(30_000);
                }
            } finally {
                hostile.close();
            }
            return summarise(load.await(1), hostile, samples, nodes);
        }
    }

    private static void sample(List<NodeProcess> nodes, long begin, List<String[]> samples) {
        double minute = (System.nanoTime() - begin) / 60e9;
        for (int i = 0; i < nodes.size(); i++) {
            try {
                ProcessProbe.Reading reading = ProcessProbe.read(nodes.get(i).pid());
                samples.add(new String[] {String.format(Locale.ROOT, "%.2f", minute), "node-" + (i + 1),
                    String.valueOf(reading.rssKb() / 1024), String.valueOf(reading.heapUsedKb() / 1024),
                    String.valueOf(reading.threads())});
            } catch (IOException | InterruptedException e) {
                samples.add(new String[] {String.format(Locale.ROOT, "%.2f", minute), "node-" + (i + 1), "-1", "-1",
                    "-1"});
            }
        }
    }

    private int summarise(LoadReport report, Hostiles hostile, List<String[]> samples, List<NodeProcess> nodes)
            throws IOException {
        StringBuilder csv = new StringBuilder("minute,node,rss_mb,heap_after_gc_mb,threads\n");
        samples.forEach(row -> csv.append(String.join(",", row)).append('\n'));
        Files.writeString(out.resolve("soak-" + label + "-memory.csv"), csv);
        LineChart chart = new LineChart("Node memory, " + label + " soak (" + sessions + " sessions, " + minutes
                + " min)", "minute", "MB");
        for (int i = 1; i <= nodes.size(); i++) {
            String node = "node-" + i;
            chart.add(series(samples, node, 2, node + " RSS"));
            chart.add(series(samples, node, 3, node + " heap after GC"));
        }
        chart.write(out.resolve("soak-" + label + "-memory.png"));

        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("label", label);
        summary.put("minutes", minutes);
        summary.put("sessions", report.sessions());
        summary.put("failed_sessions", report.failures());
        summary.put("failure_reasons", report.failureReasons());
        summary.put("input_ms_p50", report.percentile("input_ms", 50));
        summary.put("input_ms_p95", report.percentile("input_ms", 95));
        summary.put("ping_ms_p95", report.percentile("ping_ms", 95));
        Map<String, Long> counts = new TreeMap<>();
        hostile.counts.forEach((k, v) -> counts.put(k, v.get()));
        summary.put("hostile", counts);
        long errors = 0;
        for (NodeProcess node : nodes) {
            errors += Files.readAllLines(node.log()).stream().filter(line -> line.contains(" ERROR ")).count();
        }
        summary.put("node_error_log_lines", errors);
        String json = Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(summary);
        Files.writeString(out.resolve("soak-" + label + ".json"), json);
        System.out.println(json);
        long fiveHundreds = counts.entrySet().stream().filter(e -> e.getKey().startsWith("bad-api.5"))
                .mapToLong(Map.Entry::getValue).sum();
        return report.failures() == 0 && fiveHundreds == 0 ? 0 : 1;
    }

    private static LineChart.Series series(List<String[]> samples, String node, int column, String name) {
        List<double[]> points = new ArrayList<>();
        for (String[] row : samples) {
            if (row[1].equals(node) && !row[column].equals("-1")) {
                points.add(new double[] {Double.parseDouble(row[0]), Double.parseDouble(row[column])});
            }
        }
        return new LineChart.Series(name, points);
    }
}
