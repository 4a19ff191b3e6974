package org.farmgate.bench.cluster;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.farmgate.bench.Args;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;

/**
 * Starts a local cluster and either keeps it running until Ctrl-C or checks it through the load balancer:
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.cluster.LocalClusterMain [--nodes 3]
 * [--haproxy none|round-robin|hint] [--guacd HOST:PORT[,HOST:PORT...]] [--node-jar PATH] [--check SESSIONS]
 * [--env NAME=VALUE,NAME=VALUE...]}; {@code --env} adds node configuration (a higher
 * {@code GW_MAX_SESSIONS_PER_USER} for a load run, a {@code GW_ADDRESSBOOK_FILE}).
 */
public final class LocalClusterMain {

    private LocalClusterMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Args.parse(args);
        int count = Integer.parseInt(options.getOrDefault("nodes", "3"));
        LocalCluster.Balancing balancing = LocalCluster.Balancing.valueOf(options.getOrDefault("haproxy", "none")
                .toUpperCase(Locale.ROOT).replace('-', '_'));
        NodeProcess.Launch jar = NodeProcess.Launch.jarOrOwnClassPath(options.get("node-jar"));
        SyntheticGuacdOptions guacd = new SyntheticGuacdOptions().stream(java.time.Duration.ofMillis(100), 4096)
                .echoKeys(true);
        Map<String, String> env = new java.util.HashMap<>();
        for (String pair : options.getOrDefault("env", "").split(",")) {
            if (!pair.isBlank()) {
                if (!pair.contains("=")) {
                    throw new IllegalArgumentException("--env wants NAME=VALUE pairs, got '" + pair + "'");
                }
                env.put(pair.substring(0, pair.indexOf('=')).trim(), pair.substring(pair.indexOf('=') + 1));
            }
        }
        LocalCluster cluster = LocalCluster.start(jar, count, options.get("guacd"), guacd, balancing, env);
        System.out.println("cluster of " + count + " nodes is up; admin token " + LocalCluster.TOKEN);
        for (int i = 0; i < count; i++) {
            System.out.println("  " + cluster.nodeIds().get(i) + "  " + cluster.nodes().get(i).baseUrl());
        }
        System.out.println("  entry " + cluster.entryUrl() + (balancing == LocalCluster.Balancing.NONE ? ""
                : " (haproxy, " + balancing.name().toLowerCase(Locale.ROOT).replace('_', '-') + ")"));
        if (options.containsKey("check")) {
            int status;
            try {
                LoadBalancerCheck.Result result = LoadBalancerCheck.run(cluster.entryUrl(), LocalCluster.TOKEN,
                        Integer.parseInt(options.get("check")), balancing == LocalCluster.Balancing.HINT,
                        cluster.haproxy() == null ? null : cluster.haproxy().log());
                System.out.printf("%s: %d sessions, %d WebSockets attached, %d delivered to the owner, %d relayed "
                        + "by another node%n", balancing.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        result.sessions(), result.attached(), result.direct(), result.relayed());
                status = result.attached() == result.sessions() ? 0 : 1;
            } finally {
                cluster.close();
            }
            System.exit(status);
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                cluster.close();
            } catch (Exception e) {
                System.err.println("stopping the cluster: " + e.getMessage());
            }
            stopped.countDown();
        }));
        stopped.await();
    }
}
