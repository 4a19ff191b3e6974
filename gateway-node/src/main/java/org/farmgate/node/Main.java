package org.farmgate.node;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.farmgate.node.auth.Secrets;
import org.farmgate.node.auth.TokenService;
import org.farmgate.node.config.ConfigException;
import org.farmgate.node.config.ConfigSource;
import org.farmgate.node.config.NodeConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code java -jar farmgate-node.jar [--config FILE]}: starts a node with the environment's configuration. */
public final class Main {

    static final String COMMON_POOL_PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

    static {
        // Before anything touches the common pool: on a host of two CPUs or fewer its parallelism is 1, and then
        // Hazelcast's default async executor (ConcurrencyUtil) starts a new thread for every completion it hands
        // on (JFR: 3284 threads in 25 s on a node relaying 100 sessions, most of the node's system time). Two
        // threads make it use the pool instead. A value set on the command line stands.
        if (System.getProperty(COMMON_POOL_PARALLELISM) == null) {
            System.setProperty(COMMON_POOL_PARALLELISM,
                    String.valueOf(Math.max(2, Runtime.getRuntime().availableProcessors() - 1)));
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(Main.class);

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        NodeConfig config;
        try {
            config = NodeConfig.from(ConfigSource.load(System.getenv(), configFile(args)));
        } catch (ConfigException e) {
            System.err.println("configuration error: " + e.getMessage());
            System.exit(2);
            return;
        }

        if (args.length >= 1 && args[0].equals(ImportRustguac.COMMAND)) {
            if (args.length < 2) {
                System.err.println("usage: farmgate " + ImportRustguac.COMMAND + " <rustguac.db> [--config <file>]");
                System.exit(2);
            }
            System.exit(ImportRustguac.run(config, Path.of(args[1]), Clock.systemUTC(), System.out));
            return;
        }

        String adminToken = config.adminToken();
        if (adminToken == null) {
            adminToken = Secrets.newSecret(TokenService.TOKEN_PREFIX);
            // Printed once, on the console only: it is the key to this node until GW_ADMIN_TOKEN is set.
            System.out.println();
            System.out.println("  GW_ADMIN_TOKEN was not set; this node generated an admin token (shown only now):");
            System.out.println();
            System.out.println("      " + adminToken);
            System.out.println();
            System.out.println("  Set GW_ADMIN_TOKEN to keep one token across restarts and share it across nodes.");
            System.out.println();
        }

        GatewayNode node;
        try {
            node = GatewayNode.start(config, adminToken).await(120, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("could not start the node: " + e.getMessage());
            System.exit(1);
            return;
        }
        LOG.info("node {} listening on {}:{}, guacd at {}:{}, {}", config.nodeId(), config.httpHost(),
                node.httpPort(), config.guacdHost(), config.guacdPort(), config.security());

        // SIGTERM drains: no new sessions here, running ones get the grace time, then the node leaves the cluster.
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            LOG.info("node {} draining for up to {} s, then leaving the cluster", config.nodeId(),
                    config.capacity().drainGrace().toSeconds());
            node.shutdown(config.capacity().drainGrace()).onComplete(ignored -> stopped.countDown());
            try {
                stopped.await(config.capacity().drainGrace().toSeconds() + 90, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "farmgate-shutdown"));
    }

    private static Path configFile(String[] args) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals("--config")) {
                return Path.of(args[i + 1]);
            }
        }
        String fromEnv = System.getenv(ConfigSource.CONFIG_FILE);
        return fromEnv == null || fromEnv.isBlank() ? null : Path.of(fromEnv);
    }
}
