package org.farmgate.bench.cluster;

import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.ClusterKeys;
import org.farmgate.testkit.process.NodeProcess;

/**
 * A cluster on this machine: N node processes from the runnable jar, each with its own synthetic guacd (or a real
 * one at a given address), optionally the real HAProxy in front, started and stopped together.
 */
public final class LocalCluster implements AutoCloseable {

    /** How HAProxy sends WebSockets: to any node, or to the node the routing hint names. */
    public enum Balancing {
        NONE,
        ROUND_ROBIN,
        HINT
    }

    public static final String TOKEN = "local-cluster-admin-token-0123456789";

    private final Vertx vertx = Vertx.vertx();
    private final List<SyntheticGuacd> guacds = new ArrayList<>();
    private final List<NodeProcess> nodes = new ArrayList<>();
    private final List<String> nodeIds = new ArrayList<>();
    private HaproxyProcess haproxy;

    /**
     * @param realGuacd {@code host:port} of a guacd every node uses, or a comma list of one per node, or null for
     *     a synthetic guacd per node
     * @param env extra configuration for every node
     */
    public static LocalCluster start(NodeProcess.Launch jar, int count, String realGuacd, SyntheticGuacdOptions guacdOptions,
            Balancing balancing, Map<String, String> env) throws Exception {
        LocalCluster cluster = new LocalCluster();
        try {
            List<Integer> clusterPorts = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                clusterPorts.add(NodeProcess.freePort());
            }
            String members = String.join(",", clusterPorts.stream().map(port -> "127.0.0.1:" + port).toList());
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                ids.add("node-" + (i + 1));
            }
            // A secured cluster, as a user following the README runs it, unless the caller asks for an insecure one
            // (GW_CLUSTER_INSECURE=true in env): keys from bin/farmgate-keys, made once per set of node names.
            boolean insecure = Boolean.parseBoolean(env.getOrDefault("GW_CLUSTER_INSECURE", "false"));
            Path keys = insecure ? null : ClusterKeys.ensure(Path.of(System.getProperty("java.io.tmpdir"),
                    "farmgate-local-cluster-keys"), ids);
            for (int i = 0; i < count; i++) {
                String id = "node-" + (i + 1);
                Map<String, String> nodeEnv = new HashMap<>();
                if (realGuacd == null) {
                    SyntheticGuacd guacd = SyntheticGuacd.start(cluster.vertx, "127.0.0.1", 0, guacdOptions, false)
                            .await(10, TimeUnit.SECONDS);
                    cluster.guacds.add(guacd);
                    nodeEnv.put("GW_GUACD_PORT", String.valueOf(guacd.port()));
                } else {
                    String[] guacds = realGuacd.split(",");
                    if (guacds.length != 1 && guacds.length != count) {
                        throw new IllegalArgumentException("give one guacd for every node or one for all: "
                                + guacds.length + " for " + count + " nodes");
                    }
                    String[] hostPort = guacds[guacds.length == 1 ? 0 : i].trim().split(":");
                    nodeEnv.put("GW_GUACD_HOST", hostPort[0]);
                    nodeEnv.put("GW_GUACD_PORT", hostPort[1]);
                }
                nodeEnv.put("GW_NODE_ID", id);
                nodeEnv.put("GW_ADMIN_TOKEN", TOKEN);
                nodeEnv.put("GW_CLUSTER_PORT", String.valueOf(clusterPorts.get(i)));
                nodeEnv.put("GW_CLUSTER_MEMBERS", members);
                nodeEnv.put("GW_CLUSTER_HOST", "127.0.0.1");
                nodeEnv.put("GW_EVENTBUS_PORT", String.valueOf(NodeProcess.freePort()));
                nodeEnv.put("GW_RELAY_PORT", String.valueOf(NodeProcess.freePort()));
                if (keys != null) {
                    nodeEnv.put("GW_CLUSTER_SECRETS_DIR", keys.toString());
                }
                nodeEnv.put("GW_CLUSTER_NAME", "farmgate-local-" + clusterPorts.get(0));
                nodeEnv.put("GW_LOG_LEVEL", "WARN");
                nodeEnv.putAll(env);
                Path log = Files.createTempFile("farmgate-" + id + "-", ".log");
                cluster.nodes.add(NodeProcess.start(jar, nodeEnv, List.of("-Xmx512m"), log));
                cluster.nodeIds.add(id);
            }
            cluster.awaitFormed(count);
            if (balancing != Balancing.NONE) {
                cluster.haproxy = HaproxyProcess.start(cluster.nodeIds, cluster.nodes, balancing);
            }
        } catch (Exception e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private void awaitFormed(int count) throws Exception {
        GatewayApi api = new GatewayApi(nodes.get(0).baseUrl(), TOKEN);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < nodes.size(); i++) {
                if (!nodes.get(i).isAlive()) { // a port taken since it was picked, a bad setting: say so now
                    List<String> log = Files.readAllLines(nodes.get(i).log());
                    throw new IOException(nodeIds.get(i) + " exited while the cluster formed: "
                            + String.join(" | ", log.subList(Math.max(0, log.size() - 5), log.size())));
                }
            }
            try {
                if (api.get("/api/cluster").get("nodes").size() == count) {
                    return;
                }
            } catch (IOException e) {
                // not yet
            }
            Thread.sleep(200);
        }
        throw new IOException("the " + count + " nodes did not form one cluster within 90 s");
    }

    /** Where clients go: HAProxy when it runs, else the first node. */
    public String entryUrl() {
        return haproxy != null ? "http://127.0.0.1:" + haproxy.port() : nodes.get(0).baseUrl();
    }

    public List<NodeProcess> nodes() {
        return nodes;
    }

    public List<String> nodeIds() {
        return nodeIds;
    }

    public HaproxyProcess haproxy() {
        return haproxy;
    }

    @Override
    public void close() throws Exception {
        if (haproxy != null) {
            haproxy.close();
        }
        for (NodeProcess node : nodes) {
            node.close();
        }
        for (SyntheticGuacd guacd : guacds) {
            guacd.close().await(10, TimeUnit.SECONDS);
        }
        vertx.close().await(10, TimeUnit.SECONDS);
    }
}
