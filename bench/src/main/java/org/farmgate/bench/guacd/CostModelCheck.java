package org.farmgate.bench.guacd;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.farmgate.bench.Stats;
import org.farmgate.bench.cluster.LocalCluster;
import org.farmgate.bench.collect.ProcessSample;
import org.farmgate.bench.load.LoadOptions;
import org.farmgate.bench.load.LoadReport;
import org.farmgate.bench.load.LoadRun;
import org.farmgate.model.CostModel;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Json;
import org.farmgate.model.Protocol;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * The cost model against a real guacd: for every protocol, display, number of sessions and activity, N real sessions
 * through a node to real consoles (bench/scripts/guacd-targets), and what the node charges for them beside what
 * guacd's processes take (PSS, /proc/PID/smaps_rollup, summed over every process named guacd, less what they took
 * before the row). Then the sessions end and guacd is watched until its connections' processes are gone: what a
 * session still costs after its end. Run as root on the guacd's host.
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.guacd.CostModelCheck [--protocols ssh,vnc,rdp]
 * [--displays 1024x768,1920x1080] [--counts 1,20] [--activities idle,busy]}
 */
@Command(name = "cost-model-check", mixinStandardHelpOptions = true,
        description = "The node's cost model against a real guacd's memory, per protocol, display and activity.")
public final class CostModelCheck implements Callable<Integer> {

    private static final int SAMPLES = 5;
    private static final int UP_WAIT_SECS = 20;

    @Option(names = "--guacd", defaultValue = "127.0.0.1:4822", description = "the real guacd, host:port")
    private String guacd;
    @Option(names = "--protocols", defaultValue = "ssh,vnc,rdp", split = ",", description = "ssh, vnc, rdp")
    private List<String> protocols;
    @Option(names = "--displays", defaultValue = "1024x768,1920x1080", split = ",", description = "WIDTHxHEIGHT")
    private List<String> displays;
    @Option(names = "--counts", defaultValue = "1,20", split = ",", description = "sessions at once, per row")
    private List<Integer> counts;
    @Option(names = "--activities", defaultValue = "idle,busy", split = ",",
            description = "idle: a prompt, nobody types; busy: top redraws twice a second, the mouse moves 10 times a "
                    + "second (no typing: a key would quit top; not on VNC, whose sessions share one desktop: twenty "
                    + "pointers moving one cursor crash guacd 1.6.0's VNC processes)")
    private List<String> activities;
    @Option(names = "--ssh", defaultValue = "127.0.0.1:22", description = "the SSH server, host:port")
    private String ssh;
    @Option(names = "--rdp", defaultValue = "127.0.0.1:3389", description = "the RDP server, host:port")
    private String rdp;
    @Option(names = "--vnc-host", defaultValue = "127.0.0.1", description = "the VNC servers' host")
    private String vncHost;
    @Option(names = "--vnc-port", paramLabel = "WxH/ACTIVITY=PORT", description = "the VNC server of a display and "
            + "activity; default: bench/scripts/guacd-targets' 5905-5908")
    private Map<String, Integer> vncPorts = new LinkedHashMap<>(Map.of("1024x768/idle", 5905, "1024x768/busy", 5906,
            "1920x1080/idle", 5907, "1920x1080/busy", 5908));
    @Option(names = "--user", defaultValue = "bench", description = "the consoles' user (RDP: an idle desktop)")
    private String user;
    @Option(names = "--busy-user", defaultValue = "benchbusy", description = "RDP's user whose desktop runs top")
    private String busyUser;
    @Option(names = "--password", defaultValue = "bench", description = "the consoles' password")
    private String password;
    @Option(names = "--settle-secs", defaultValue = "20", description = "after the last session is up, before sampling")
    private int settleSecs;
    @Option(names = "--after-secs", defaultValue = "30", description = "how long to watch guacd after the sessions end")
    private int afterSecs;
    @Option(names = "--csv", description = "every row's measurements into this file, as they come")
    private String csv;
    @Option(names = "--against", paramLabel = "CSV", description = "no run: a run's --csv against today's model")
    private String against;
    @Option(names = "--node-jar", paramLabel = "PATH", description = "the node jar; default: this JVM's class path")
    private String nodeJar;

    /**
     * One line of the table: what guacd took per session (PSS above what it took before the row), what the node
     * charged and measured per session, what stayed per session at the sessions' end, and how long until guacd's
     * sessions' processes were gone.
     */
    record Row(String protocol, String display, int sessions, String activity, int ok, int up, double measuredMb,
            double nodeChargedMb, double nodeMeasuredMb, double afterEndMb, double goneAfterSecs) {

        static final String HEADER = "protocol,display,sessions,activity,ok,up,measured_mb,node_charged_mb,"
                + "node_measured_mb,after_end_mb,gone_after_s";

        String csv() {
            return String.join(",", protocol, display, String.valueOf(sessions), activity, String.valueOf(ok),
                    String.valueOf(up), number(measuredMb), number(nodeChargedMb), number(nodeMeasuredMb),
                    number(afterEndMb), number(goneAfterSecs));
        }

        static Row parse(String line) {
            String[] f = line.split(",");
            return new Row(f[0], f[1], Integer.parseInt(f[2]), f[3], Integer.parseInt(f[4]), Integer.parseInt(f[5]),
                    Double.parseDouble(f[6]), Double.parseDouble(f[7]), Double.parseDouble(f[8]),
                    Double.parseDouble(f[9]), Double.parseDouble(f[10]));
        }

        /** What {@code model} charges a session when {@code up} such run: each its own cost, the protocol's once. */
        double modelMb(CostModel model) {
            Protocol p = Protocol.parse(protocol);
            int n = Math.max(1, up);
            return (n * (double) model.estimateMb(p, parseDisplay(display)) + model.protocolsMb(p::equals)) / n;
        }

        private static String number(double value) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
    }

    private static final String TABLE = "%-5s %-10s %4s %-5s %5s %4s %10s %9s %7s %9s %9s %12s %10s%n";

    private static void header() {
        System.out.printf(TABLE, "proto", "display", "N", "load", "ok", "up", "guacd PSS", "model MB", "off",
                "node chg", "node saw", "after end MB", "gone in s");
    }

    private static void print(Row row) {
        double model = row.modelMb(CostModel.MEASURED_GUACD_1_6);
        System.out.printf(TABLE, row.protocol(), row.display(), row.sessions(), row.activity(),
                row.ok() + "/" + row.sessions(), row.up(), fixed(row.measuredMb()), fixed(model),
                String.format(Locale.ROOT, "%+.0f%%", 100 * (model - row.measuredMb()) / row.measuredMb()),
                fixed(row.nodeChargedMb()), fixed(row.nodeMeasuredMb()), fixed(row.afterEndMb()),
                String.format(Locale.ROOT, "%.0f", row.goneAfterSecs()));
    }

    private static String fixed(double mb) {
        return String.format(Locale.ROOT, "%.1f", mb);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new CostModelCheck()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (against != null) { // a run's measurements against today's default model: guacd does not depend on it
            header();
            Files.readAllLines(Path.of(against)).stream().skip(1).filter(l -> !l.isBlank()).map(Row::parse)
                    .forEach(CostModelCheck::print);
            return 0;
        }
        Map<String, String> env = Map.of("GW_MAX_SESSIONS_PER_USER", "1000", "GW_MAX_MEMORY_MB_PER_USER", "10000000",
                "GW_MEMORY_BUDGET_MB", "100000", "GW_CLUSTER_INSECURE", "true");
        List<Row> rows = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(NodeProcess.Launch.jarOrOwnClassPath(nodeJar), 1, guacd,
                new SyntheticGuacdOptions(), LocalCluster.Balancing.NONE, env)) {
            String node = cluster.nodes().get(0).baseUrl();
            HttpClient http = HttpClient.newHttpClient();
            header();
            for (String protocol : protocols) {
                for (String display : displays) {
                    for (String activity : activities) {
                        for (int count : counts) {
                            Row row = row(http, node, Protocol.parse(protocol), display, count, activity);
                            rows.add(row);
                            print(row);
                            if (csv != null) {
                                Files.writeString(Path.of(csv), Row.HEADER + "\n" + String.join("\n",
                                        rows.stream().map(Row::csv).toList()) + "\n");
                            }
                        }
                    }
                }
            }
        }
        return rows.stream().allMatch(r -> r.ok() == r.sessions()) ? 0 : 1;
    }

    private Row row(HttpClient http, String node, Protocol protocol, String display, int count, String activity)
            throws Exception {
        boolean busy = switch (activity) {
            case "idle" -> false;
            case "busy" -> true;
            default -> throw new IllegalArgumentException("--activities takes idle and busy, not '" + activity + "'");
        };
        DisplaySize size = parseDisplay(display);
        awaitConnectionsGone(60);
        long baselineKb = guacdPssKb();
        double rampSecs = Math.max(1, count * 0.5);
        // Long enough for the slowest console to come up (UP_WAIT) and then be measured with all the others.
        double holdSecs = rampSecs + UP_WAIT_SECS + settleSecs + SAMPLES + 10;
        LoadOptions load = LoadOptions.parse(loadArguments(node, protocol, size, display, count, busy, rampSecs,
                holdSecs).toArray(String[]::new));
        LoadRun.Background sessions = LoadRun.inBackground(load, "cost-model-check-load");
        // Until every session is up, or none came up for UP_WAIT seconds (a console that refused one).
        int up = 0;
        long lastChange = System.nanoTime();
        while (up < count && System.nanoTime() - lastChange < UP_WAIT_SECS * 1_000_000_000L && sessions.running()) {
            Thread.sleep(200);
            int now = guacdConnections();
            if (now != up) {
                up = now;
                lastChange = System.nanoTime();
            }
        }
        Thread.sleep(settleSecs * 1000L);
        double[] totals = new double[SAMPLES];
        int live = guacdConnections();
        for (int i = 0; i < SAMPLES; i++) {
            totals[i] = (guacdPssKb() - baselineKb) / 1024.0;
            Thread.sleep(1000);
        }
        JsonNode nodeRow = clusterRow(http, node);
        JsonNode memory = nodeRow.path("model_vs_measured");
        int charged = Math.max(1, nodeRow.path("sessions_total").asInt());
        LoadReport done = sessions.await((long) ((rampSecs + holdSecs + 120) * 1000));
        int ok = done == null ? 0 : (int) (done.sessions() - done.failures());
        if (done != null) {
            done.failureReasons().forEach((reason, times) -> System.out.println("  " + times + " failed: " + reason));
        }
        long ended = System.nanoTime();
        double afterEnd = (guacdPssKb() - baselineKb) / 1024.0 / Math.max(1, live);
        double gone = Double.NaN;
        while (System.nanoTime() - ended < afterSecs * 1_000_000_000L) {
            if (guacdConnections() == 0) {
                gone = (System.nanoTime() - ended) / 1e9;
                break;
            }
            Thread.sleep(250);
        }
        return new Row(protocol.wireName(), display, count, activity, ok, live,
                Stats.median(totals) / Math.max(1, live),
                memory.path("model_mb").asDouble() / charged, memory.path("measured_mb").asDouble() / charged,
                afterEnd, gone);
    }

    private List<String> loadArguments(String node, Protocol protocol, DisplaySize size, String display, int count,
            boolean busy, double rampSecs, double holdSecs) {
        String[] target = switch (protocol) {
            case SSH -> ssh.split(":");
            case RDP -> rdp.split(":");
            case VNC -> new String[] {vncHost, String.valueOf(vncPort(display, busy))};
        };
        List<String> args = new ArrayList<>(List.of("--base-url", node, "--token", LocalCluster.TOKEN,
                "--protocol", protocol.wireName(), "--target-host", target[0], "--target-port", target[1],
                "--target-user", protocol == Protocol.RDP && busy ? busyUser : user, "--target-password", password,
                "--width", String.valueOf(size.width()), "--height", String.valueOf(size.height()),
                "--sessions", String.valueOf(count), "--ramp-secs", String.valueOf(rampSecs),
                "--hold-secs", String.valueOf(holdSecs), "--mouse-hz", busy && protocol != Protocol.VNC ? "10" : "0",
                "--keys-hz", "0",
                "--grace-secs", "120"));
        if (protocol == Protocol.RDP) {
            args.addAll(List.of("--argument", "security=any", "--argument", "ignore_cert=true"));
        }
        if (protocol == Protocol.SSH && busy) {
            args.addAll(List.of("--argument", "command=top -d 0.5"));
        }
        return args;
    }

    private int vncPort(String display, boolean busy) {
        Integer port = vncPorts.get(display + "/" + (busy ? "busy" : "idle"));
        if (port == null) {
            throw new IllegalArgumentException("no --vnc-port for " + display + "/" + (busy ? "busy" : "idle"));
        }
        return port;
    }

    static DisplaySize parseDisplay(String display) {
        String[] parts = display.split("x");
        try {
            return new DisplaySize(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), DisplaySize.DEFAULT.dpi());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("--displays takes WIDTHxHEIGHT, not '" + display + "'", e);
        }
    }

    private static JsonNode clusterRow(HttpClient http, String node) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(node + "/api/cluster"))
                .header("Authorization", "Bearer " + LocalCluster.TOKEN).build(), HttpResponse.BodyHandlers.ofString());
        return Json.mapper().readTree(response.body()).path("nodes").path(0);
    }

    private void awaitConnectionsGone(int seconds) throws InterruptedException, IOException {
        long by = System.nanoTime() + seconds * 1_000_000_000L;
        while (guacdConnections() > 0) {
            if (System.nanoTime() > by) {
                throw new IllegalStateException("guacd still has " + guacdConnections() + " connections of the last "
                        + "row after " + seconds + " s");
            }
            Thread.sleep(250);
        }
    }

    /**
     * guacd's main process and its sessions' processes: those with a socket to their console besides the pair to
     * the main process. Left out: the process the node's health probe makes guacd fork (its {@code select} waits
     * 15 s for a {@code connect} that never comes), which would count as a session otherwise.
     */
    private static List<ProcessSample> guacd() throws IOException {
        List<ProcessSample> all = new ArrayList<>();
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            for (Path process : entries.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(CostModelCheck::isGuacd).toList()) {
                ProcessSample sample = ProcessSample.read(Path.of("/proc"), Long.parseLong(
                        process.getFileName().toString()));
                if (sample != null) {
                    all.add(sample);
                }
            }
        }
        long main = all.stream().mapToLong(ProcessSample::pid).min().orElse(-1);
        return all.stream().filter(p -> p.pid() == main || p.sockets() >= 2).toList();
    }

    private static int guacdConnections() throws IOException {
        return Math.max(0, guacd().size() - 1);
    }

    private static long guacdPssKb() throws IOException {
        return guacd().stream().mapToLong(ProcessSample::pssKb).sum();
    }

    private static boolean isGuacd(Path process) {
        try {
            return Files.readString(process.resolve("comm")).strip().equals("guacd");
        } catch (IOException gone) {
            return false;
        }
    }
}
