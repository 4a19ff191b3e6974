package org.farmgate.bench.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.ClusterKeys;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A cluster CA and cluster key rotated on running node processes, one node restarted at a time, as an operator
 * following k8s/cluster-secrets.yaml does: (1) trust the new CA beside the old and add the new cluster key as
 * verify-only, (2) node certificates of the new CA and the new key signing, (3) the old CA and key out. After every
 * single restart the cluster must be whole and work across the nodes: a session created on one node and placed on
 * the other (the event bus, mutual TLS), attached through the first (the relay, mutual TLS), and no shared record
 * refused on any node ({@code farmgate_shared_records_rejected}).
 *
 * <p>{@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.cluster.RollingRotation [--nodes 2]}
 */
@Command(name = "rolling-rotation", mixinStandardHelpOptions = true,
        description = "Rotates the CA and the cluster key on a running cluster, one node at a time.")
public final class RollingRotation implements Callable<Integer> {

    private static final String TOKEN = "rolling-rotation-admin-token-0123456789ab";

    @Option(names = "--nodes", defaultValue = "2", description = "how many nodes (the last one holds the sessions)")
    private int count;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RollingRotation()).execute(args));
    }

    /** A node's secret files at one step of the rotation. */
    private record Stage(String name, Path certificates, Path trust, Path clusterKey) {
    }

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("farmgate-rotation");
        List<String> ids = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            ids.add("node-" + i);
        }
        Path oldKeys = keys(dir.resolve("old"), ids);
        Path newKeys = keys(dir.resolve("new"), ids);
        Path both = dir.resolve("both");
        copy(oldKeys, both);
        run("--out", both.toString(), "--trust", newKeys.resolve("ca.pem").toString(), "--rotate-key");
        Path promoted = dir.resolve("promoted");
        copy(both, promoted);
        run("--out", promoted.toString(), "--promote-key");
        Path retired = dir.resolve("retired");
        copy(promoted, retired);
        run("--out", retired.toString(), "--retire-key");
        List<Stage> stages = List.of(
                new Stage("old CA, old key", oldKeys, oldKeys, oldKeys.resolve("cluster.key")),
                new Stage("both CAs trusted, new key verifies", oldKeys, both, both.resolve("cluster.key")),
                new Stage("new certificates, new key signs", newKeys, both, promoted.resolve("cluster.key")),
                new Stage("old CA and key out", newKeys, newKeys, retired.resolve("cluster.key")));

        Vertx vertx = Vertx.vertx();
        List<Integer> clusterPorts = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            clusterPorts.add(NodeProcess.freePort());
        }
        String members = String.join(",", clusterPorts.stream().map(port -> "127.0.0.1:" + port).toList());
        List<Map<String, String>> envs = new ArrayList<>();
        List<NodeProcess> nodes = new ArrayList<>();
        boolean allHeld = true;
        try {
            for (int i = 0; i < count; i++) {
                SyntheticGuacd guacd = SyntheticGuacd.start(vertx, "127.0.0.1", 0, new SyntheticGuacdOptions(), false)
                        .await(10, TimeUnit.SECONDS);
                Map<String, String> env = new HashMap<>();
                env.put("GW_NODE_ID", ids.get(i));
                env.put("GW_ADMIN_TOKEN", TOKEN);
                env.put("GW_HTTP_PORT", String.valueOf(NodeProcess.freePort()));
                env.put("GW_GUACD_PORT", String.valueOf(guacd.port()));
                env.put("GW_CLUSTER_PORT", String.valueOf(clusterPorts.get(i)));
                env.put("GW_CLUSTER_MEMBERS", members);
                env.put("GW_CLUSTER_HOST", "127.0.0.1");
                env.put("GW_CLUSTER_NAME", "farmgate-rotation-" + clusterPorts.get(0));
                env.put("GW_EVENTBUS_PORT", String.valueOf(NodeProcess.freePort()));
                env.put("GW_RELAY_PORT", String.valueOf(NodeProcess.freePort()));
                env.put("GW_DRAIN_GRACE_SECS", "0");
                env.put("GW_LOG_LEVEL", "WARN");
                // The last node has room for every session: a session made on another node crosses the event bus.
                env.put("GW_MEMORY_BUDGET_MB", i == count - 1 ? "50000" : "100");
                envs.add(env);
                nodes.add(start(env, stages.get(0), ids.get(i)));
            }
            awaitWhole(nodes);
            System.out.printf("%-40s %-8s %10s  %s%n", "step", "node", "rejoin ms", "cross-node session, records refused");
            allHeld &= report(stages.get(0).name(), "-", 0, check(nodes));
            for (int s = 1; s < stages.size(); s++) {
                for (int i = 0; i < count; i++) {
                    long started = System.nanoTime();
                    nodes.get(i).close();
                    nodes.set(i, start(envs.get(i), stages.get(s), ids.get(i)));
                    awaitWhole(nodes);
                    long rejoin = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    allHeld &= report(stages.get(s).name(), ids.get(i), rejoin, check(nodes));
                }
            }
        } finally {
            for (NodeProcess node : nodes) {
                node.close();
            }
            vertx.close().await(10, TimeUnit.SECONDS);
        }
        System.out.println(allHeld ? "every step held" : "A STEP FAILED");
        return allHeld ? 0 : 1;
    }

    private static boolean report(String stage, String node, long rejoinMs, String outcome) {
        System.out.printf("%-40s %-8s %10d  %s%n", stage, node, rejoinMs, outcome);
        return outcome.startsWith("ok");
    }

    private NodeProcess start(Map<String, String> env, Stage stage, String id) throws Exception {
        Map<String, String> full = new HashMap<>(env);
        full.put("GW_CLUSTER_KEYSTORE", stage.certificates().resolve(id + ".p12").toString());
        full.put("GW_CLUSTER_KEYSTORE_PASSWORD", password(stage.certificates()));
        full.put("GW_CLUSTER_TRUSTSTORE", stage.trust().resolve("truststore.p12").toString());
        full.put("GW_CLUSTER_TRUSTSTORE_PASSWORD", password(stage.trust()));
        full.put("GW_CLUSTER_KEY_FILE", stage.clusterKey().toString());
        return NodeProcess.start(NodeProcess.Launch.ownClassPath(), full, List.of("-Xmx384m"),
                Files.createTempFile("farmgate-rotation-" + id + "-", ".log"));
    }

    /** A session made on the first node, held by the last, attached through the first; and refused records. */
    private static String check(List<NodeProcess> nodes) throws Exception {
        GatewayApi first = new GatewayApi(nodes.get(0).baseUrl(), TOKEN);
        GatewayApi.Attach session = first.createSession("{\"hostname\":\"127.0.0.1\",\"username\":\"u\","
                + "\"password\":\"p\"}");
        JsonNode info = first.get("/api/sessions/" + session.sessionId());
        String holder = info.get("node_id").asText();
        Vertx vertx = Vertx.vertx();
        boolean synced;
        try (WsClient ws = WsClient.connect(vertx, nodes.get(0).httpPort(), session.wsPath(), null)) {
            synced = synced(ws);
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
        first.delete("/api/sessions/" + session.sessionId());
        long refused = 0;
        for (NodeProcess node : nodes) {
            refused += rejected(node.baseUrl());
        }
        boolean crossed = !holder.equals("node-1");
        return (synced && crossed && refused == 0 ? "ok" : "FAILED") + ": held by " + holder + ", relayed and synced "
                + synced + ", records refused " + refused;
    }

    /** Whether the client is sent a frame's sync; what it was sent instead is printed, to say why not. */
    private static boolean synced(WsClient ws) {
        try {
            return ws.awaitInstruction("sync") != null;
        } catch (Exception | AssertionError e) {
            System.out.println("  no sync: " + e.getMessage() + "; close " + ws.closeCode() + " " + ws.closeReason());
            return false;
        }
    }

    private static long rejected(String baseUrl) throws Exception {
        java.net.http.HttpResponse<String> metrics = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(baseUrl + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        long total = 0;
        Matcher m = Pattern.compile("(?m)^farmgate_shared_records_rejected_total\\{[^}]*} (\\S+)")
                .matcher(metrics.body());
        while (m.find()) {
            total += (long) Double.parseDouble(m.group(1));
        }
        return total;
    }

    private static void awaitWhole(List<NodeProcess> nodes) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            boolean whole = true;
            for (NodeProcess node : nodes) {
                try {
                    JsonNode cluster = new GatewayApi(node.baseUrl(), TOKEN).get("/api/cluster");
                    whole &= cluster.get("nodes").size() == nodes.size();
                } catch (java.io.IOException e) {
                    whole = false;
                }
            }
            if (whole) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the nodes did not form one cluster within 90 s");
    }

    private static Path keys(Path out, List<String> ids) throws Exception {
        run("--out", out.toString(), "--nodes", String.join(",", ids));
        return out;
    }

    private static void run(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(ClusterKeys.script().toString()));
        command.addAll(List.of(args));
        ClusterKeys.run(command);
    }

    private static void copy(Path from, Path to) throws Exception {
        Files.createDirectories(to);
        try (var files = Files.list(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(file.getFileName()));
            }
        }
    }

    private static String password(Path keys) throws Exception {
        return Files.readString(keys.resolve("password")).trim();
    }
}
