package org.farmgate.bench.cluster;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.farmgate.bench.Choices;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * Starts a local cluster and either keeps it running until Ctrl-C or checks it through the load balancer:
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.cluster.LocalClusterMain [--nodes 3]
 * [--haproxy none|round-robin|hint] [--guacd HOST:PORT[,HOST:PORT...]] [--node-jar PATH] [--check SESSIONS]
 * [--env NAME=VALUE,NAME=VALUE...]}; {@code --env} adds node configuration (a higher
 * {@code GW_MAX_SESSIONS_PER_USER} for a load run, a {@code GW_ADDRESSBOOK_FILE}).
 */
@Command(name = "local-cluster", mixinStandardHelpOptions = true, description = "A local cluster, until Ctrl-C.")
public final class LocalClusterMain implements Callable<Integer> {

    @Option(names = "--nodes", defaultValue = "3", description = "how many nodes")
    private int count;
    @Option(names = "--haproxy", defaultValue = "none", description = "none, round-robin or hint")
    private String haproxy;
    @Option(names = "--guacd", paramLabel = "HOST:PORT[,...]", description = "real guacds; default: synthetic ones")
    private String guacd;
    @Option(names = "--node-jar", paramLabel = "PATH", description = "the node jar; default: this JVM's class path")
    private String nodeJar;
    @Option(names = "--check", paramLabel = "SESSIONS", description = "check the balancer with this many, and stop")
    private Integer check;
    @Option(names = "--env", split = ",", paramLabel = "NAME=VALUE", description = "node configuration to add")
    private Map<String, String> env = new HashMap<>();

    public static void main(String[] args) {
        System.exit(new CommandLine(new LocalClusterMain()).execute(args));
    }

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        Choices.require(spec, "--haproxy", List.of(haproxy), List.of("none", "round-robin", "hint"));
        LocalCluster.Balancing balancing = LocalCluster.Balancing.valueOf(haproxy.toUpperCase(Locale.ROOT)
                .replace('-', '_'));
        SyntheticGuacdOptions synthetic = new SyntheticGuacdOptions().stream(java.time.Duration.ofMillis(100), 4096)
                .echoKeys(true);
        LocalCluster cluster = LocalCluster.start(NodeProcess.Launch.jarOrOwnClassPath(nodeJar), count, guacd,
                synthetic, balancing, env);
        System.out.println("cluster of " + count + " nodes is up; admin token " + LocalCluster.TOKEN);
        for (int i = 0; i < count; i++) {
            System.out.println("  " + cluster.nodeIds().get(i) + "  " + cluster.nodes().get(i).baseUrl());
        }
        System.out.println("  entry " + cluster.entryUrl() + (balancing == LocalCluster.Balancing.NONE ? ""
                : " (haproxy, " + balancing.name().toLowerCase(Locale.ROOT).replace('_', '-') + ")"));
        if (check != null) {
            try {
                LoadBalancerCheck.Result result = LoadBalancerCheck.run(cluster.entryUrl(), LocalCluster.TOKEN,
                        check, balancing == LocalCluster.Balancing.HINT,
                        cluster.haproxy() == null ? null : cluster.haproxy().log());
                System.out.printf("%s: %d sessions, %d WebSockets attached, %d delivered to the owner, %d relayed "
                        + "by another node%n", balancing.name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        result.sessions(), result.attached(), result.direct(), result.relayed());
                return result.attached() == result.sessions() ? 0 : 1;
            } finally {
                cluster.close();
            }
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
        return 0;
    }
}
