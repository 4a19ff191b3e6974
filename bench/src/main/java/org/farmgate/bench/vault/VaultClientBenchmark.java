package org.farmgate.bench.vault;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.farmgate.bench.Choices;
import org.farmgate.bench.Stats;
import org.farmgate.bench.node.CpuClock;
import org.farmgate.model.Json;
import org.farmgate.router.addressbook.VaultSettings;
import org.farmgate.router.addressbook.VaultSource;
import org.farmgate.testkit.vault.SyntheticVault;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Where a node's first address-book load goes: the same load (every folder's listing and {@code .config}, every
 * entry, 32 calls at once) in a freshly started JVM each time, through the node's own {@link VaultSource} (the Vault
 * Java Driver on the JDK's HttpClient), and through Vert.x's HTTP client with Jackson, alternating. Wall time and the
 * child JVM's CPU, medians: what a transport costs when nothing of it is compiled yet, which is when a node loads.
 */
@Command(name = "vault-client-benchmark", mixinStandardHelpOptions = true,
        description = "a cold JVM's address-book load through the Vault driver and through Vert.x's HTTP client")
public final class VaultClientBenchmark implements Callable<Integer> {

    private static final List<String> CLIENTS = List.of("driver", "vertx");

    @Option(names = "--entries", defaultValue = "982", description = "entries in 21 folders (21..5000)")
    private int entries;

    @Option(names = "--trials", defaultValue = "5", description = "fresh JVMs per client (1..20)")
    private int trials;

    @Option(names = "--latency-ms", defaultValue = "2", description = "what every Vault answer costs (0..50)")
    private int latencyMs;

    @Option(names = "--clients", defaultValue = "driver,vertx", split = ",", description = "driver, vertx")
    private List<String> clients;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--child", hidden = true, description = "internal: run one load here (driver|vertx)")
    private String child;

    @Option(names = "--vault", hidden = true, description = "internal: the synthetic Vault's address")
    private String vaultAddress;

    public static void main(String[] args) {
        System.exit(new CommandLine(new VaultClientBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (child != null) {
            return loadHere(child, vaultAddress);
        }
        if (entries < 21 || entries > 5000 || trials < 1 || trials > 20 || latencyMs < 0 || latencyMs > 50) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--entries 21..5000, --trials 1..20, --latency-ms 0..50");
        }
        Choices.require(spec, "--clients", clients, CLIENTS);
        Vertx vertx = Vertx.vertx();
        SyntheticVault vault = SyntheticVault.start(vertx, "secret", "bench-root").await(10, TimeUnit.SECONDS);
        try {
            VaultPopulate.populate(vault.address(), "bench-root", "secret", "rustguac", entries, 21);
            vault.delay(latencyMs);
            System.out.printf("%d entries in 21 folders, Vault answering after %d ms, 32 calls at once, a fresh JVM "
                    + "per load%n", entries, latencyMs);
            System.out.printf("%-8s %8s %14s %14s%n", "client", "trial", "wall ms", "JVM CPU ms");
            List<List<Double>> walls = new ArrayList<>();
            List<List<Double>> cpus = new ArrayList<>();
            for (int c = 0; c < clients.size(); c++) {
                walls.add(new ArrayList<>());
                cpus.add(new ArrayList<>());
            }
            for (int t = 0; t < trials; t++) {
                for (int c = 0; c < clients.size(); c++) {
                    double[] result = fork(clients.get(c), vault.address());
                    walls.get(c).add(result[0]);
                    cpus.get(c).add(result[1]);
                    System.out.printf(Locale.ROOT, "%-8s %8d %14.0f %14.0f%n", clients.get(c), t + 1, result[0],
                            result[1]);
                }
            }
            for (int c = 0; c < clients.size(); c++) {
                System.out.printf(Locale.ROOT, "median %-8s wall %.0f ms, CPU %.0f ms%n", clients.get(c),
                        Stats.median(walls.get(c).stream().mapToDouble(Double::doubleValue).toArray()),
                        Stats.median(cpus.get(c).stream().mapToDouble(Double::doubleValue).toArray()));
            }
        } finally {
            vault.close().await(10, TimeUnit.SECONDS);
            vertx.close().await(10, TimeUnit.SECONDS);
        }
        return 0;
    }

    /** Runs one load in a new JVM; its answer line is "wall-ms cpu-ms". */
    private static double[] fork(String client, String vault) throws Exception {
        Process process = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), VaultClientBenchmark.class.getName(), "--child", client,
                "--vault", vault).redirectErrorStream(true).start();
        String last = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                last = line;
            }
        }
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0 || last == null
                || !last.startsWith("result ")) {
            process.destroyForcibly();
            throw new IllegalStateException("the " + client + " load failed: " + last);
        }
        String[] parts = last.split(" ");
        return new double[] {Double.parseDouble(parts[1]), Double.parseDouble(parts[2])};
    }

    private static int loadHere(String client, String vault) throws Exception {
        long cpu = CpuClock.selfCpuMillis();
        long start = System.nanoTime();
        int read = client.equals("driver") ? driver(vault) : vertx(vault);
        double wall = (System.nanoTime() - start) / 1e6;
        double used = CpuClock.selfCpuMillis() - cpu;
        if (read < 21) {
            throw new IllegalStateException("read " + read + " entries");
        }
        System.out.printf(Locale.ROOT, "result %.1f %.1f%n", wall, used);
        return 0;
    }

    /** The node's own path: {@link VaultSource#load()} with its pool of 32. */
    private static int driver(String vault) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            VaultSource source = new VaultSource(new VaultSettings(vault, "bench-root", null, null, null, null,
                    "secret", "rustguac", 32, Duration.ofSeconds(10)), pool, nanos -> { }, Clock.systemUTC());
            return source.load().folders().stream().mapToInt(folder -> folder.entries().size()).sum();
        } finally {
            pool.shutdownNow();
        }
    }

    /** The same reads through Vert.x's HTTP client, 32 at once, Jackson for the JSON. */
    private static int vertx(String vault) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            java.net.URI uri = java.net.URI.create(vault);
            io.vertx.core.http.HttpClient http = vertx.createHttpClient(new HttpClientOptions()
                    .setDefaultHost(uri.getHost()).setDefaultPort(uri.getPort()), new PoolOptions()
                    .setHttp1MaxSize(32));
            List<String> folders = new ArrayList<>();
            for (JsonNode key : list(http, "rustguac/shared").await(30, TimeUnit.SECONDS)) {
                folders.add("rustguac/shared/" + key.asText().replace("/", ""));
            }
            List<Future<JsonNode>> listings = new ArrayList<>();
            List<Future<JsonNode>> reads = new ArrayList<>();
            for (String folder : folders) {
                listings.add(list(http, folder));
                reads.add(get(http, folder + "/.config"));
            }
            int count = 0;
            for (int i = 0; i < folders.size(); i++) {
                for (JsonNode key : listings.get(i).await(30, TimeUnit.SECONDS)) {
                    if (!key.asText().equals(".config") && !key.asText().endsWith("/")) {
                        reads.add(get(http, folders.get(i) + "/" + key.asText()));
                        count++;
                    }
                }
            }
            for (Future<JsonNode> read : reads) {
                read.await(30, TimeUnit.SECONDS);
            }
            return count;
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    private static Future<JsonNode> list(io.vertx.core.http.HttpClient http, String path) {
        return call(http, "/v1/secret/metadata/" + path + "?list=true").map(json -> json.path("data").path("keys"));
    }

    private static Future<JsonNode> get(io.vertx.core.http.HttpClient http, String path) {
        return call(http, "/v1/secret/data/" + path).map(json -> json.path("data").path("data"));
    }

    private static Future<JsonNode> call(io.vertx.core.http.HttpClient http, String uri) {
        return http.request(new RequestOptions().setMethod(HttpMethod.GET).setURI(uri)
                .putHeader("X-Vault-Token", "bench-root")).compose(request -> request.send()
                        .compose(response -> response.body()))
                .map(body -> {
                    try {
                        return Json.mapper().readTree(body.getBytes());
                    } catch (java.io.IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
    }
}
