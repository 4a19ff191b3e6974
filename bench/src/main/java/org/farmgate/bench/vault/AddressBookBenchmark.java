package org.farmgate.bench.vault;

import io.vertx.core.Vertx;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.farmgate.bench.Stats;
import org.farmgate.bench.cluster.LocalCluster;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;
import org.farmgate.testkit.vault.SyntheticVault;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * GET /api/addressbook against a Vault whose every answer costs a fixed added latency (the field measured about
 * 2.3 ms per call), at 182 and 982 entries in 21 folders: the cold first load on one node, warm reads on the other
 * node, and, in the same run, rustguac's way of reading the same book one call after another.
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.vault.AddressBookBenchmark [--latency-ms 2.3]
 * [--sizes 182,982] [--warm-requests 300] [--parallelism 32]}
 */
@Command(name = "address-book", mixinStandardHelpOptions = true, description = "The address book on a slow Vault.")
public final class AddressBookBenchmark implements Callable<Integer> {

    /** Writes through the API, each followed by the full reload that makes it visible everywhere. */
    private static final int REFRESHES = 7;

    @Option(names = "--latency-ms", defaultValue = "2.3", description = "what every Vault answer costs")
    private double latencyMs;
    @Option(names = "--sizes", defaultValue = "182,982", split = "\\s*,\\s*", description = "book sizes, in 21 folders")
    private List<Integer> sizes;
    @Option(names = "--warm-requests", defaultValue = "300", description = "timed reads of the warm book")
    private int warm;
    @Option(names = "--warm-up", defaultValue = "50", description = "untimed rounds of the three reads first")
    private int warmUp;
    @Option(names = "--parallelism", defaultValue = "32", description = "Vault calls a node makes at once")
    private int parallelism;
    @Option(names = "--node-jar", paramLabel = "PATH", description = "the node jar; default: this JVM's class path")
    private String nodeJar;

    public static void main(String[] args) {
        System.exit(new CommandLine(new AddressBookBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        NodeProcess.Launch jar = NodeProcess.Launch.jarOrOwnClassPath(nodeJar);
        System.out.printf(Locale.ROOT, "%nAddress book on a Vault adding %.1f ms per call; nodes read %d calls at once%n",
                latencyMs, parallelism);
        System.out.printf("%-8s %-8s %14s %9s %9s %9s %12s %12s %12s %12s %12s %12s %12s %12s %12s %10s %10s%n",
                "entries", "calls", "sequential ms", "cold ms", "load ms", "cold/seq", "warm p50 ms", "warm p95 ms",
                "warm p99 ms", "gzip p50 ms", "gzip p95 ms", "304 p50 ms", "304 p95 ms", "me p50 ms", "me p95 ms",
                "reload ms", "write ms");
        for (int size : sizes) {
            run(jar, size, 21, latencyMs, warmUp, warm, parallelism);
        }
        return 0;
    }

    private static void run(NodeProcess.Launch jar, int entries, int folders, double latencyMs, int warmUp, int warm,
            int parallelism) throws Exception {
        Vertx vertx = Vertx.vertx();
        SyntheticVault vault = SyntheticVault.start(vertx, "secret", "bench-root").await(10, TimeUnit.SECONDS);
        try {
            VaultPopulate.populate(vault.address(), "bench-root", "secret", "rustguac", entries, folders);
            vault.delay(Math.round(latencyMs)); // whole milliseconds: the synthetic Vault's timer granularity
            SequentialReader sequential = new SequentialReader(vault.address(), "bench-root", "secret", "rustguac");
            long start = System.nanoTime();
            sequential.readAll();
            double sequentialMs = (System.nanoTime() - start) / 1e6;
            try (LocalCluster cluster = LocalCluster.start(jar, 2, null, new SyntheticGuacdOptions(),
                    LocalCluster.Balancing.NONE, Map.of("VAULT_ADDR", vault.address(), "VAULT_TOKEN", "bench-root",
                            "GW_ADDRESSBOOK_TTL_SECS", "3600", "GW_VAULT_PARALLELISM", String.valueOf(parallelism)))) {
                HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                String first = cluster.nodes().get(0).baseUrl();
                String second = cluster.nodes().get(1).baseUrl();
                start = System.nanoTime();
                get(http, first);
                double coldMs = (System.nanoTime() - start) / 1e6;
                double loadMs = loadSeconds(http, first) * 1e3;
                String etag = http.send(request(second + "/api/addressbook").build(),
                        HttpResponse.BodyHandlers.discarding()).headers().firstValue("ETag").orElse("none");
                long[] samples = new long[warm];
                long[] conditional = new long[warm];
                long[] floor = new long[warm];
                long[] zipped = new long[warm];
                int notModified = 0;
                // Interleaved, so that all see the same machine: the whole book, plain and as a browser takes it
                // (gzip, unzipped by the client); as the page asks every few seconds, with the validator of the copy
                // it holds (a 304); and the cheapest authenticated request (GET /api/me), what any request costs
                // here before the address book's part.
                for (int i = -warmUp; i < warm; i++) {
                    long t = System.nanoTime();
                    get(http, second);
                    long full = System.nanoTime() - t;
                    t = System.nanoTime();
                    getGzipped(http, second);
                    long gzip = System.nanoTime() - t;
                    t = System.nanoTime();
                    int status = http.send(request(second + "/api/addressbook").header("If-None-Match", etag)
                            .build(), HttpResponse.BodyHandlers.ofByteArray()).statusCode();
                    long validated = System.nanoTime() - t;
                    t = System.nanoTime();
                    http.send(request(second + "/api/me").build(), HttpResponse.BodyHandlers.ofByteArray());
                    long me = System.nanoTime() - t;
                    if (i >= 0) { // before: the JIT's warm-up of both ends, unreported
                        samples[i] = full;
                        zipped[i] = gzip;
                        conditional[i] = validated;
                        floor[i] = me;
                        notModified += status == 304 ? 1 : 0;
                    }
                }
                if (notModified < warm) { // an older node (--node-jar) without validators answers in full
                    System.out.printf("(%d of %d asks with the validator answered in full)%n", warm - notModified,
                            warm);
                }
                double[] reloads = new double[REFRESHES];
                double[] writes = new double[REFRESHES];
                for (int i = 0; i < REFRESHES; i++) {
                    double before = loadSeconds(http, second);
                    long t = System.nanoTime();
                    put(http, second, "/api/addressbook/folders/shared/bench-folder-01",
                            "{\"description\":\"edited " + i + "\",\"allowed_groups\":[\"bench\"]}");
                    writes[i] = (System.nanoTime() - t) / 1e6;
                    reloads[i] = (loadSeconds(http, second) - before) * 1e3;
                }
                System.out.printf(Locale.ROOT, "%-8d %-8d %14.0f %9.0f %9.0f %8.1f%% %12.2f %12.2f %12.2f %12.2f "
                        + "%12.2f %12.2f %12.2f %12.2f %12.2f %10.0f %10.0f%n", entries, sequential.calls(),
                        sequentialMs, coldMs, loadMs, 100 * coldMs / sequentialMs, Stats.percentile(samples, 50) / 1e6,
                        Stats.percentile(samples, 95) / 1e6, Stats.percentile(samples, 99) / 1e6,
                        Stats.percentile(zipped, 50) / 1e6, Stats.percentile(zipped, 95) / 1e6,
                        Stats.percentile(conditional, 50) / 1e6, Stats.percentile(conditional, 95) / 1e6,
                        Stats.percentile(floor, 50) / 1e6, Stats.percentile(floor, 95) / 1e6,
                        Stats.median(reloads), Stats.median(writes));
            }
        } finally {
            vault.close().await(10, TimeUnit.SECONDS);
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    /** How long the node itself spent reading Vault, from its own metrics. */
    private static double loadSeconds(HttpClient http, String base) throws Exception {
        String metrics = http.send(HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        return metrics.lines().filter(line -> line.startsWith("farmgate_addressbook_load_duration_seconds_sum")
                && line.contains("outcome=\"ok\"")).mapToDouble(line -> Double.parseDouble(
                line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    private static void put(HttpClient http, String base, String path, String json) throws Exception {
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + path))
                .header("Authorization", "Bearer " + LocalCluster.TOKEN).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("PUT " + path + " answered " + response.statusCode() + ": "
                    + response.body());
        }
    }

    private static HttpRequest.Builder request(String url) {
        return HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + LocalCluster.TOKEN);
    }

    /** As a browser takes it: gzipped, then unzipped (an older node answers plain). */
    private static void getGzipped(HttpClient http, String base) throws Exception {
        HttpResponse<byte[]> response = http.send(request(base + "/api/addressbook").header("Accept-Encoding", "gzip")
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        byte[] body = response.body();
        if (response.headers().firstValue("Content-Encoding").orElse("").equals("gzip")) {
            body = new GZIPInputStream(new ByteArrayInputStream(body)).readAllBytes();
        }
        if (response.statusCode() != 200 || body.length == 0 || body[0] != '{') {
            throw new IllegalStateException("GET /api/addressbook (gzip) answered " + response.statusCode());
        }
    }

    private static void get(HttpClient http, String base) throws Exception {
        HttpResponse<String> response = http.send(request(base + "/api/addressbook").build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /api/addressbook answered " + response.statusCode() + ": "
                    + response.body());
        }
    }
}
