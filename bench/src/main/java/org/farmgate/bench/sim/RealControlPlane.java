package org.farmgate.bench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.commons.csv.CSVPrinter;
import org.farmgate.bench.Csv;
import org.farmgate.bench.lab.HazelcastDiagnostics;
import org.farmgate.bench.lab.LabNodes;
import org.farmgate.bench.lab.NetnsLab;
import org.farmgate.bench.lab.SocketCounters;
import org.farmgate.bench.node.CpuClock;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.ClusterKeys;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The control plane of real node processes, each on a host of its own ({@link NetnsLab}: secured as in production,
 * mutual TLS and sealed records), measured idle and under {@link SteadyArrivals}, beside {@link ScaleSimulation}'s
 * run of the same cluster and load: what the simulation is checked against before it is believed at 1000 nodes.
 *
 * <p>Per node and second: what it sent on each cluster channel, read from the kernel's counters of its sockets
 * ({@link SocketCounters}: Hazelcast's port, the event bus's, the relay's) as bytes and data segments (a message of
 * the control plane is a TLS record of a few hundred bytes, one segment; under load several may share one), and the
 * node's CPU. The relay carries sessions' bytes, not the control plane's; it is shown apart.
 */
@Command(name = "real-control-plane", mixinStandardHelpOptions = true,
        description = "3, 5 and 10 real nodes' control plane, idle and under load, beside the simulation's.")
public final class RealControlPlane implements Callable<Integer> {

    private static final String TOKEN = "scale-admin-token-0123456789abcdef";
    private static final int HTTP = 8080;
    /** How often each member dumps its counts: a window's ends are known to this much. */
    private static final int DIAGNOSTICS_SECONDS = 5;
    private static final Map<Integer, String> CHANNELS = Map.of(5701, "hazelcast", 5702, "eventbus", 5703, "relay");

    @Spec
    private CommandSpec spec;
    @Option(names = "--nodes", split = ",", defaultValue = "3,5,10",
            description = "cluster sizes (2..24; a node takes about 400 MB)")
    private List<Integer> sizes;
    @Option(names = "--warmup-seconds", defaultValue = "20", description = "after the cluster formed, before idle")
    private int warmupSeconds;
    @Option(names = "--idle-seconds", defaultValue = "30", description = "the idle window")
    private int idleSeconds;
    @Option(names = "--load-seconds", defaultValue = "30", description = "the window under load")
    private int loadSeconds;
    @Option(names = "--creates-per-second", defaultValue = "2", description = "the whole cluster's (0.1..50)")
    private double createsPerSecond;
    @Option(names = "--session-seconds", defaultValue = "10", description = "mean session length (10..600)")
    private int sessionSeconds;
    @Option(names = "--placement-choices", defaultValue = "0", description = "GW_PLACEMENT_CHOICES: 0 ranks every "
            + "node, 2 the best of two")
    private int choices;
    @Option(names = "--node-jar", paramLabel = "PATH", description = "the node jar; default: this JVM's class path")
    private String nodeJar;
    @Option(names = "--csv", description = "a row per size, phase, node and channel")
    private Path csv;

    /** The simulation's messages against the real nodes', per size and phase, as printed: for the suite's check. */
    final List<Double> ratios = new ArrayList<>();

    /** One node's CPU, sockets and Hazelcast's own counts at an instant. */
    private record Reading(long cpuMillis, SocketCounters sockets, HazelcastDiagnostics.Dump hazelcast) {
    }

    /**
     * What the nodes did over a window, each node's figures per second: what its sockets sent by channel, its
     * Hazelcast packets and bytes (before TLS), its operations run by kind, its CPU.
     */
    private record Window(double seconds, List<Map<String, SocketCounters.Sent>> sent, List<Long> cpuMillis,
            double[] packets, double[] packetBytes, Map<String, Double> operations) {

        double perNodeSecond(String channel, boolean segments) {
            double total = 0;
            for (Map<String, SocketCounters.Sent> node : sent) {
                SocketCounters.Sent each = node.get(channel);
                if (each != null) {
                    total += segments ? each.segments() : each.bytes();
                }
            }
            return total / sent.size() / seconds;
        }

        double packetsPerNodeSecond() {
            return java.util.Arrays.stream(packets).average().orElse(0);
        }

        double packetBytesPerNodeSecond() {
            return java.util.Arrays.stream(packetBytes).average().orElse(0);
        }

        double cpuPercentPerNode() {
            return cpuMillis.stream().mapToLong(Long::longValue).average().orElse(0) / seconds / 10;
        }

        /** The operations members ran most, per node per second. */
        String topOperations(int count) {
            StringBuilder top = new StringBuilder();
            operations.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .limit(count).forEach(e -> top.append(String.format(Locale.ROOT, "%s %.2f  ", e.getKey(),
                            e.getValue() / sent.size())));
            return top.toString().trim();
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new RealControlPlane()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        for (int size : sizes) {
            if (size < 2 || size > 24) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--nodes must be within 2..24, not "
                        + size);
            }
        }
        if (createsPerSecond < 0.1 || createsPerSecond > 50 || sessionSeconds < 10 || sessionSeconds > 600) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--creates-per-second must be within 0.1..50 and --session-seconds within 10..600");
        }
        String unavailable = NetnsLab.unavailable();
        if (unavailable != null) {
            System.err.println("the measurement needs network namespaces: " + unavailable);
            return 2;
        }
        System.out.printf("%-6s %-5s %9s %9s %9s %9s %9s %9s %8s | %9s %9s %6s %6s%n", "nodes", "phase",
                "hz pkt/s", "hz segs", "eb msg/s", "msg/n/s", "KB/n/s", "relay KB", "cpu %", "sim msg", "sim KB",
                "msg x", "KB x");
        CSVPrinter out = csv == null ? null : Csv.write(csv, "nodes", "phase", "node", "channel", "segments_per_s",
                "bytes_per_s", "cpu_percent");
        int worst = 0;
        for (int size : sizes) {
            List<Window> windows = measure(size);
            String[] phases = {"idle", "load"};
            for (int p = 0; p < 2; p++) {
                Window real = windows.get(p);
                ScaleSimulation.Result simulated = simulate(size, p == 0 ? 0 : createsPerSecond);
                double messages = real.packetsPerNodeSecond() + real.perNodeSecond("eventbus", true);
                double bytes = real.packetBytesPerNodeSecond() + real.perNodeSecond("eventbus", false);
                double messageRatio = simulated.messagesPerNodeSecond / messages;
                double byteRatio = simulated.bytesPerNodeSecond / bytes;
                System.out.printf(Locale.ROOT, "%-6d %-5s %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %8.1f | %9.1f %9.1f "
                        + "%6.2f %6.2f%n", size, phases[p], real.packetsPerNodeSecond(),
                        real.perNodeSecond("hazelcast", true), real.perNodeSecond("eventbus", true), messages,
                        bytes / 1024, real.perNodeSecond("relay", false) / 1024, real.cpuPercentPerNode(),
                        simulated.messagesPerNodeSecond, simulated.bytesPerNodeSecond / 1024, messageRatio,
                        byteRatio);
                System.out.println("       operations run per node per second: " + real.topOperations(8));
                System.out.println("       simulated (messages per node per second, by what sends them): "
                        + simulated.topContributors(8));
                if (Math.abs(messageRatio - 1) > 0.2) {
                    worst++;
                }
                ratios.add(messageRatio);
                if (out != null) {
                    write(out, size, phases[p], real);
                }
            }
        }
        if (out != null) {
            out.close();
        }
        System.out.println(worst == 0 ? "the simulation's messages are within 20 % of the real nodes' everywhere"
                : worst + " rows where the simulation's messages are more than 20 % off the real nodes'");
        return 0;
    }

    private static void write(CSVPrinter out, int size, String phase, Window window) throws IOException {
        for (int k = 0; k < window.sent().size(); k++) {
            double cpu = window.cpuMillis().get(k) / window.seconds() / 10;
            for (Map.Entry<String, SocketCounters.Sent> each : new TreeMap<>(window.sent().get(k)).entrySet()) {
                out.printRecord(size, phase, "node-" + (k + 1), each.getKey(),
                        String.format(Locale.ROOT, "%.2f", each.getValue().segments() / window.seconds()),
                        String.format(Locale.ROOT, "%.0f", each.getValue().bytes() / window.seconds()),
                        String.format(Locale.ROOT, "%.2f", cpu));
            }
        }
        out.flush();
    }

    private ScaleSimulation.Result simulate(int size, double rate) {
        ScaleSimulation simulation = new ScaleSimulation();
        new CommandLine(simulation).parseArgs("--creates-per-second", String.valueOf(rate), "--session-seconds",
                String.valueOf(sessionSeconds));
        return simulation.run(size, choices == 2 ? "sampled" : "rank-all"); // what today's node does
    }

    /** The idle window, then the window under load, on a cluster of {@code size} real nodes. */
    private List<Window> measure(int size) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int k = 1; k <= size; k++) {
            ids.add("node-" + k);
        }
        Path keys = ClusterKeys.ensure(Path.of(System.getProperty("java.io.tmpdir"), "farmgate-scale-keys"), ids);
        Path logs = Files.createTempDirectory("farmgate-scale-");
        Vertx vertx = Vertx.vertx();
        List<NodeProcess> nodes = new ArrayList<>();
        try (NetnsLab lab = NetnsLab.up(size)) {
            SyntheticGuacd guacd = SyntheticGuacd.start(vertx, NetnsLab.ROOT, 0,
                    new SyntheticGuacdOptions().idleTimeout(Duration.ZERO), false).await(10, TimeUnit.SECONDS);
            try {
                for (int k = 1; k <= size; k++) {
                    nodes.add(NodeProcess.start(NodeProcess.Launch.jarOrOwnClassPath(nodeJar),
                            environment(k, size, keys, guacd.port()), jvmArguments(logs.resolve("hazelcast-" + k)),
                            logs.resolve("node-" + k + ".log"), NetnsLab.on(k), NetnsLab.host(k)));
                }
                awaitFormed(size, logs);
                Thread.sleep(TimeUnit.SECONDS.toMillis(warmupSeconds));
                Window idle = window(nodes, idleSeconds, logs);
                List<SteadyArrivals.Node> entries = new ArrayList<>();
                for (int k = 1; k <= size; k++) {
                    entries.add(new SteadyArrivals.Node(api(k), NetnsLab.host(k), HTTP));
                }
                Window load;
                try (SteadyArrivals arrivals = new SteadyArrivals(vertx, entries, createsPerSecond, sessionSeconds,
                        26)) {
                    arrivals.start();
                    Thread.sleep(TimeUnit.SECONDS.toMillis(2L * sessionSeconds)); // the sessions held reach steady
                    load = window(nodes, loadSeconds, logs);
                    System.out.printf("       (%d nodes: %d sessions created, %d refused or failed, %d held at the "
                            + "end; logs in %s)%n", size, arrivals.created(), arrivals.failed(), arrivals.held(),
                            logs);
                }
                return List.of(idle, load);
            } finally {
                for (NodeProcess node : nodes) {
                    node.kill();
                }
                guacd.close().await(10, TimeUnit.SECONDS);
                vertx.close().await(10, TimeUnit.SECONDS);
            }
        }
    }

    private Map<String, String> environment(int k, int size, Path keys, int guacdPort) {
        List<Integer> members = new ArrayList<>();
        for (int other = 1; other <= size; other++) {
            members.add(other);
        }
        Map<String, String> env = LabNodes.environment(k, members, "farmgate-scale", keys, TOKEN, HTTP, guacdPort);
        env.put("GW_REATTACH_GRACE_SECS", "0");
        env.put("GW_PLACEMENT_CHOICES", String.valueOf(choices));
        return env;
    }

    private static GatewayApi api(int k) {
        return new GatewayApi("http://" + NetnsLab.host(k) + ":" + HTTP, TOKEN);
    }

    private static void awaitFormed(int size, Path logs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            boolean formed = true;
            for (int k = 1; k <= size && formed; k++) {
                JsonNode rows = api(k).get("/api/cluster").get("nodes");
                formed = rows.size() == size;
            }
            if (formed) {
                return;
            }
            Thread.sleep(500);
        }
        throw new IOException("the cluster of " + size + " did not form in 120 s; logs in " + logs);
    }

    private static List<String> jvmArguments(Path diagnostics) throws IOException {
        Files.createDirectories(diagnostics);
        List<String> arguments = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC"));
        arguments.addAll(HazelcastDiagnostics.jvmArguments(diagnostics, DIAGNOSTICS_SECONDS));
        return arguments;
    }

    private static Window window(List<NodeProcess> nodes, int seconds, Path logs) throws Exception {
        List<Reading> before = read(nodes, logs);
        long started = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        List<Reading> after = read(nodes, logs);
        double elapsed = (System.nanoTime() - started) / 1e9;
        List<Map<String, SocketCounters.Sent>> sent = new ArrayList<>();
        List<Long> cpu = new ArrayList<>();
        double[] packets = new double[nodes.size()];
        double[] packetBytes = new double[nodes.size()];
        Map<String, Double> operations = new HashMap<>();
        for (int k = 0; k < nodes.size(); k++) {
            sent.add(after.get(k).sockets().since(before.get(k).sockets()));
            cpu.add(after.get(k).cpuMillis() - before.get(k).cpuMillis());
            HazelcastDiagnostics.Dump first = before.get(k).hazelcast();
            HazelcastDiagnostics.Dump last = after.get(k).hazelcast();
            if (first == null || last == null || last.atMillis() <= first.atMillis()) {
                throw new IOException("node-" + (k + 1) + " wrote no Hazelcast diagnostics in the window; logs in "
                        + logs);
            }
            packets[k] = last.framesPerSecond(first);
            packetBytes[k] = last.bytesPerSecond(first);
            last.operationsPerSecond(first).forEach((name, rate) -> operations.merge(name, rate, Double::sum));
        }
        return new Window(elapsed, sent, cpu, packets, packetBytes, operations);
    }

    private static List<Reading> read(List<NodeProcess> nodes, Path logs) throws IOException {
        List<Reading> readings = new ArrayList<>();
        for (int k = 1; k <= nodes.size(); k++) {
            readings.add(new Reading(CpuClock.cpuMillis(nodes.get(k - 1).pid()),
                    SocketCounters.read(NetnsLab.on(k), CHANNELS),
                    HazelcastDiagnostics.latest(logs.resolve("hazelcast-" + k))));
        }
        return readings;
    }
}
