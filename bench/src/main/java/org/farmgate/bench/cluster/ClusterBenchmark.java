package org.farmgate.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.bench.Choices;
import org.farmgate.bench.Stats;
import org.farmgate.bench.node.CpuClock;
import org.farmgate.model.Json;
import org.farmgate.testkit.client.StreamReader;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * The cluster's own costs, each beside its baseline in the same run:
 * <ul>
 * <li>session creation latency with 100 concurrent clients spread over 3 nodes, against one node alone;</li>
 * <li>relay throughput of a WebSocket that reaches a node that does not hold its session, against the same
 * session's WebSocket on its owner.</li>
 * </ul>
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.cluster.ClusterBenchmark [--clients 100]
 * [--seconds 10] [--think-ms 1000] [--warmup-seconds 10] [--idle-seconds 10] [--rounds 5] [--phases create,relay]}
 */
@Command(name = "cluster", mixinStandardHelpOptions = true, description = "The cluster's own costs.")
public final class ClusterBenchmark implements Callable<Integer> {

    /** Between the last client's delete and the idle window: the asynchronous releases and fences settle. */
    private static final long IDLE_SETTLE_MILLIS = 3000;
    private static final String CREATE = "{\"hostname\":\"127.0.0.1\",\"username\":\"bench\",\"password\":\"x\"}";

    @Option(names = "--node-jar", paramLabel = "PATH", description = "the node jar; default: this JVM's class path")
    private String nodeJar;
    @Option(names = "--clients", defaultValue = "100", description = "concurrent clients creating sessions")
    private int clients;
    @Option(names = "--seconds", defaultValue = "10", description = "measuring time of each setup")
    private int seconds;
    @Option(names = "--think-ms", defaultValue = "1000", description = "the longest a client keeps its session")
    private long thinkMs;
    @Option(names = "--warmup-seconds", defaultValue = "10", description = "load before measuring creation: "
            + "the JIT and the first connections between nodes (their TLS handshakes) are not what a running farm pays")
    private int warmupSeconds;
    @Option(names = "--idle-seconds", defaultValue = "10", description = "after the creates, the nodes' CPU with "
            + "nothing to do, taken out of the net figure; 0 skips it")
    private int idleSeconds;
    @Option(names = "--rounds", defaultValue = "5", description = "rounds of the relay phase")
    private int rounds;
    @Option(names = "--phases", defaultValue = "create,relay", split = ",",
            description = "create, relay (one flooding session), relay-load (--clients realistic sessions)")
    private List<String> phases;
    @Option(names = "--security", defaultValue = "secure", split = ",", description = "secure (mutual TLS, sealed "
            + "records), secure-jdk (the same on the JDK's TLS engine), insecure (GW_CLUSTER_INSECURE), or several, "
            + "measured one after the other in the same run")
    private List<String> security;

    @Option(names = "--records", defaultValue = "none", split = ",", description = "where history and audit go: none "
            + "(GW_DB_URL=none), embedded (a node alone's H2; clusters: none), postgresql (--db-url), or several, "
            + "measured side by side in the same run")
    private List<String> records;

    @Option(names = "--db-url", paramLabel = "URL", description = "postgresql://host:port/database for "
            + "--records postgresql (user: --db-user, no password)")
    private String dbUrl;

    @Option(names = "--db-user", defaultValue = "postgres")
    private String dbUser;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ClusterBenchmark()).execute(args));
    }

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Choices.require(spec, "--phases", phases, List.of("create", "relay", "relay-load"));
        Choices.require(spec, "--security", security, List.of("secure", "secure-jdk", "insecure"));
        Choices.require(spec, "--records", records, List.of("none", "embedded", "postgresql"));
        if (records.contains("postgresql") && dbUrl == null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--records postgresql needs --db-url");
        }
        NodeProcess.Launch jar = NodeProcess.Launch.jarOrOwnClassPath(nodeJar);
        Map<String, String> env = Map.of("GW_MAX_SESSIONS", "5000", "GW_MAX_SESSIONS_PER_USER", "5000",
                "GW_MAX_MEMORY_MB_PER_USER", "10000000", "GW_COST_SSH_MB", "1", "GW_MEMORY_BUDGET_MB", "100000");
        if (phases.contains("create")) {
            System.out.printf("%nSession creation: %d concurrent clients, each keeping its session up to %d ms, then"
                    + " deleting it and creating the next; %d s%n", clients, thinkMs, seconds);
            System.out.printf("%-34s %10s %9s %9s %9s %9s %16s %16s %14s %16s %8s%n", "setup", "creates/s", "p50 ms",
                    "p95 ms", "p99 ms", "errors", "CPU ms / session", "db CPU ms / s.", "idle CPU ms/s",
                    "net ms / s.", "local %");
            for (String kept : records) {
                Map<String, String> alone = new HashMap<>(withRecords(env, kept));
                alone.put("GW_CLUSTER_ENABLED", "false");
                try (LocalCluster one = LocalCluster.start(jar, 1, null, new SyntheticGuacdOptions(),
                        LocalCluster.Balancing.NONE, alone)) {
                    creates("1 node, " + kept, one, clients, warmupSeconds, seconds, thinkMs, idleSeconds);
                }
            }
            for (String mode : security) {
                for (String kept : records) {
                    try (LocalCluster three = LocalCluster.start(jar, 3, null, new SyntheticGuacdOptions(),
                            LocalCluster.Balancing.NONE, withRecords(withSecurity(env, mode), kept))) {
                        creates("3 nodes, " + mode + ", " + kept, three, clients, warmupSeconds, seconds,
                                thinkMs, idleSeconds);
                    }
                }
            }
        }
        if (phases.contains("relay-load")) {
            System.out.printf("%nRealistic relay load: %d sessions on one node, each a 16 KB frame every 50 ms with "
                    + "syncs answered, every browser attached to the other node; %d s rounds%n", clients, seconds);
            System.out.printf("%-6s %-9s %12s %14s %16s%n", "round", "cluster", "MB/s", "of offered", "nodes CPU %");
            for (int r = 0; r < rounds; r++) {
                for (String mode : security) {
                    relayLoad(jar, r + 1, mode, clients, seconds, withSecurity(env, mode));
                }
            }
        }
        if (phases.contains("relay")) {
            for (String mode : security) {
                System.out.printf("%nrelay, cluster %s", mode);
                relay(jar, rounds, Math.max(3, seconds / 2), withSecurity(env, mode));
            }
        }
        return 0;
    }

    /** Where the nodes keep history and audit: nowhere, a node alone's embedded database, or PostgreSQL. */
    private Map<String, String> withRecords(Map<String, String> env, String kept) {
        Map<String, String> out = new HashMap<>(env);
        switch (kept) {
            case "none" -> out.put("GW_DB_URL", "none");
            case "embedded" -> out.remove("GW_DB_URL");
            default -> {
                out.put("GW_DB_URL", dbUrl);
                out.put("GW_DB_USER", dbUser);
            }
        }
        return out;
    }

    /** secure (the default TLS engine), secure-jdk (the JDK's), insecure: each measured as its own cluster. */
    private static Map<String, String> withSecurity(Map<String, String> env, String mode) {
        Map<String, String> out = new HashMap<>(env);
        switch (mode) {
            case "secure" -> out.put("GW_CLUSTER_INSECURE", "false");
            case "secure-jdk" -> {
                out.put("GW_CLUSTER_INSECURE", "false");
                out.put("GW_CLUSTER_TLS_ENGINE", "jdk");
            }
            default -> out.put("GW_CLUSTER_INSECURE", "true"); // insecure: the modes were checked at the start
        }
        return out;
    }

    /**
     * {@code sessions} realistic sessions (16 KB every 50 ms: 320 KB/s each, an active desktop), all relayed by
     * the node that does not hold them: what the relay's TLS costs at a load a farm really carries. Both nodes' CPU
     * is counted, since the owner encrypts what the relaying node decrypts.
     */
    private static void relayLoad(NodeProcess.Launch jar, int round, String mode, int sessions, int seconds,
            Map<String, String> env) throws Exception {
        try (LocalCluster cluster = LocalCluster.start(jar, 2, null, new SyntheticGuacdOptions()
                .stream(Duration.ofMillis(50), 16 * 1024), LocalCluster.Balancing.NONE, env)) {
            Vertx vertx = Vertx.vertx();
            List<StreamReader> readers = new ArrayList<>();
            List<WebSocket> sockets = new ArrayList<>();
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            String first = cluster.nodes().get(0).baseUrl();
            // used to the end (closed last): Vert.x 5 closes a client that nothing references, its sockets with it
            WebSocketClient client = vertx.createWebSocketClient(
                    new WebSocketClientOptions().setMaxConnections(sessions + 1));
            try {
                for (int i = 0; i < sessions; i++) {
                    JsonNode session = post(http, first + "/api/sessions", CREATE);
                    String ticket = post(http, first + "/api/ws-ticket", null).get("ticket").asText();
                    int owner = cluster.nodeIds().indexOf(session.get("node_id").asText());
                    NodeProcess other = cluster.nodes().get(1 - owner);
                    WebSocket ws = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1")
                            .setPort(other.httpPort()).setURI(session.get("ws_url").asText() + "?ticket=" + ticket)
                            .addSubProtocol("guacamole")).await(10, TimeUnit.SECONDS);
                    StreamReader reader = new StreamReader(ws::writeTextMessage);
                    ws.handler(reader::accept);
                    readers.add(reader);
                    sockets.add(ws);
                }
                Thread.sleep(2000);
                long cpu = cpu(cluster);
                long before = readers.stream().mapToLong(StreamReader::bytes).sum();
                long start = System.nanoTime();
                Thread.sleep(seconds * 1000L);
                double elapsed = (System.nanoTime() - start) / 1e9;
                double mbps = (readers.stream().mapToLong(StreamReader::bytes).sum() - before) / 1e6 / elapsed;
                double cpuPercent = 100.0 * (cpu(cluster) - cpu) / (elapsed * 1000);
                double offered = sessions * 16 * 1024 * 20 / 1e6;
                System.out.printf(Locale.ROOT, "%-6d %-9s %12.1f %13.1f%% %15.0f%%%n", round, mode, mbps,
                        100 * mbps / offered, cpuPercent);
            } finally {
                for (WebSocket ws : sockets) {
                    ws.close();
                }
                client.close();
                vertx.close().await(10, TimeUnit.SECONDS);
            }
        }
    }

    private static long cpu(LocalCluster cluster) throws IOException {
        long total = 0;
        for (NodeProcess node : cluster.nodes()) {
            total += CpuClock.cpuMillis(node.pid());
        }
        return total;
    }

    private static JsonNode post(HttpClient http, String url, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .header("Authorization", "Bearer " + LocalCluster.TOKEN)
                .POST(body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return Json.mapper().readTree(http.send(request.build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    private static List<String> urls(LocalCluster cluster) {
        return cluster.nodes().stream().map(NodeProcess::baseUrl).toList();
    }

    /**
     * Clients that create a session, keep it up to {@code thinkMillis}, delete it and start again; only the creates
     * are timed, and zero think time measures saturation. The nodes' CPU (all processes together) is read over the
     * measuring window and divided by the sessions created in it; so is a PostgreSQL's on this machine (its
     * {@code postgres} processes), whoever else uses it meanwhile. The nodes' CPU is read again over a window with
     * nothing to do once the clients are done; the net figure is a session's cost without that standing cost, which
     * the gross one spreads over the sessions of the window. Each client sends its creates and deletes to one node;
     * {@code local %} is the share of its sessions placed on that node, opened and ended there without a hop.
     */
    private static void creates(String label, LocalCluster cluster, int clients, int warmupSeconds, int seconds,
            long thinkMillis, int idleSeconds) throws Exception {
        List<String> urls = urls(cluster);
        ExecutorService io = Executors.newFixedThreadPool(8);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(io).connectTimeout(Duration.ofSeconds(5)).build();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long warmUpEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmupSeconds);
        long end = warmUpEnd + TimeUnit.SECONDS.toNanos(seconds);
        List<Future<List<Long>>> results = new ArrayList<>();
        AtomicInteger errors = new AtomicInteger();
        AtomicInteger local = new AtomicInteger(); // measured creates placed on the node they were sent to
        Map<String, Integer> failures = new java.util.concurrent.ConcurrentSkipListMap<>();
        for (int c = 0; c < clients; c++) {
            String base = urls.get(c % urls.size());
            String baseNode = cluster.nodeIds().get(c % urls.size());
            results.add(pool.submit(() -> {
                List<Long> samples = new ArrayList<>();
                while (System.nanoTime() < end) {
                    long start = System.nanoTime();
                    HttpResponse<String> created = http.send(HttpRequest.newBuilder(URI.create(base + "/api/sessions"))
                            .header("Authorization", "Bearer " + LocalCluster.TOKEN)
                            .POST(HttpRequest.BodyPublishers.ofString(CREATE)).build(),
                            HttpResponse.BodyHandlers.ofString());
                    long elapsed = System.nanoTime() - start;
                    if (created.statusCode() != 201) {
                        errors.incrementAndGet();
                        String body = created.body();
                        failures.merge(created.statusCode() + " " + body.substring(0, Math.min(160, body.length())),
                                1, Integer::sum);
                        continue;
                    }
                    JsonNode session = Json.mapper().readTree(created.body());
                    if (start > warmUpEnd) {
                        samples.add(elapsed);
                        if (session.get("node_id").asText().equals(baseNode)) {
                            local.incrementAndGet();
                        }
                    }
                    String id = session.get("session_id").asText();
                    Thread.sleep(java.util.concurrent.ThreadLocalRandom.current().nextLong(thinkMillis + 1));
                    http.send(HttpRequest.newBuilder(URI.create(base + "/api/sessions/" + id))
                            .header("Authorization", "Bearer " + LocalCluster.TOKEN).DELETE().build(),
                            HttpResponse.BodyHandlers.discarding());
                }
                return samples;
            }));
        }
        TimeUnit.NANOSECONDS.sleep(warmUpEnd - System.nanoTime());
        long cpuAtStart = cpu(cluster);
        long databaseAtStart = CpuClock.cpuMillisOf("postgres");
        TimeUnit.NANOSECONDS.sleep(end - System.nanoTime());
        long cpuUsed = cpu(cluster) - cpuAtStart;
        long databaseUsed = CpuClock.cpuMillisOf("postgres") - databaseAtStart;
        List<Long> all = new ArrayList<>();
        for (Future<List<Long>> result : results) {
            all.addAll(result.get());
        }
        pool.shutdown();
        io.shutdown();
        // What the warm nodes burn with nothing to do (heartbeats, membership, scans), read once the clients are
        // done: the per-session figure divides this standing cost by the create rate, the net one does not.
        double idlePerSecond = 0;
        if (idleSeconds > 0) {
            Thread.sleep(IDLE_SETTLE_MILLIS);
            long idleAtStart = cpu(cluster);
            TimeUnit.SECONDS.sleep(idleSeconds);
            idlePerSecond = (cpu(cluster) - idleAtStart) / (double) idleSeconds;
        }
        long[] samples = all.stream().mapToLong(Long::longValue).toArray();
        System.out.printf(Locale.ROOT, "%-34s %10.0f %9.1f %9.1f %9.1f %9d %16.1f %16.1f %14.1f %16.1f %8.0f%n",
                label,
                samples.length / (double) seconds, Stats.percentile(samples, 50) / 1e6,
                Stats.percentile(samples, 95) / 1e6, Stats.percentile(samples, 99) / 1e6, errors.get(),
                samples.length == 0 ? 0.0 : cpuUsed / (double) samples.length,
                samples.length == 0 ? 0.0 : databaseUsed / (double) samples.length, idlePerSecond,
                samples.length == 0 ? 0.0 : (cpuUsed - idlePerSecond * seconds) / samples.length,
                samples.length == 0 ? 0.0 : 100.0 * local.get() / samples.length);
        // What went wrong is part of the result: a count alone hides a 503 from a 500.
        failures.forEach((failure, count) -> System.out.printf(Locale.ROOT, "  %d x %s%n", count, failure));
    }

    /**
     * Two nodes, each in front of a guacd that floods; the same kind of session read via its owner and via the other.
     * A session ends with its client: held for a client to come back, each round's flood would go on into its anchor
     * through the next rounds (RelayBenchmark's node, bench/RESULTS.md).
     */
    private static void relay(NodeProcess.Launch jar, int rounds, int seconds, Map<String, String> env)
            throws Exception {
        Map<String, String> ending = new HashMap<>(env);
        ending.put("GW_REATTACH_GRACE_SECS", "0");
        try (LocalCluster cluster = LocalCluster.start(jar, 2, null, new SyntheticGuacdOptions().flood(8 * 6048)
                .idleTimeout(Duration.ZERO), LocalCluster.Balancing.NONE, ending)) {
            Vertx vertx = Vertx.vertx();
            WebSocketClient client = vertx.createWebSocketClient();
            System.out.printf("%nOne session's flood read through its owner and through the other node, %d s rounds%n",
                    seconds);
            System.out.printf("%-6s %14s %18s %8s%n", "round", "owner MB/s", "non-owner MB/s", "ratio");
            double[] ratios = new double[rounds];
            double[] owners = new double[rounds];
            double[] others = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                owners[r] = read(cluster, client, true, seconds);
                others[r] = read(cluster, client, false, seconds);
                ratios[r] = 100 * others[r] / owners[r];
                System.out.printf(Locale.ROOT, "%-6d %14.1f %18.1f %7.1f%%%n", r + 1, owners[r], others[r], ratios[r]);
            }
            System.out.printf(Locale.ROOT, "%-6s %14.1f %18.1f %7.1f%%%n", "median", Stats.median(owners),
                    Stats.median(others), Stats.median(ratios));
            client.close();
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    private static double read(LocalCluster cluster, WebSocketClient client, boolean viaOwner, int seconds)
            throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String first = cluster.nodes().get(0).baseUrl();
        JsonNode session = Json.mapper().readTree(http.send(HttpRequest.newBuilder(URI.create(first + "/api/sessions"))
                .header("Authorization", "Bearer " + LocalCluster.TOKEN).POST(HttpRequest.BodyPublishers.ofString(
                        CREATE)).build(), HttpResponse.BodyHandlers.ofString()).body());
        String ticket = Json.mapper().readTree(http.send(HttpRequest.newBuilder(URI.create(first + "/api/ws-ticket"))
                .header("Authorization", "Bearer " + LocalCluster.TOKEN).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString()).body()).get("ticket").asText();
        int ownerIndex = cluster.nodeIds().indexOf(session.get("node_id").asText());
        NodeProcess target = cluster.nodes().get(viaOwner ? ownerIndex : 1 - ownerIndex);
        WebSocket ws = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(target.httpPort())
                .setURI(session.get("ws_url").asText() + "?ticket=" + ticket).addSubProtocol("guacamole"))
                .await(10, TimeUnit.SECONDS);
        StreamReader reader = new StreamReader(null);
        ws.handler(reader::accept);
        Thread.sleep(1000);
        long before = reader.bytes();
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        double megabytes = (reader.bytes() - before) / 1e6;
        double mbps = megabytes / ((System.nanoTime() - start) / 1e9);
        ws.close().await(10, TimeUnit.SECONDS);
        return mbps;
    }
}
