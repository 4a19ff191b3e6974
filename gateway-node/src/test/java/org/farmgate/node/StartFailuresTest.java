package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.node.config.ConfigSource;
import org.farmgate.node.config.NodeConfig;
import org.junit.jupiter.api.Test;

/** A node that cannot start says which of its addresses is the problem. */
class StartFailuresTest {

    @Test
    void aTakenPortIsNamed() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            NodeConfig config = NodeConfig.from(new ConfigSource(Map.of("GW_CLUSTER_ENABLED", "false",
                    "GW_HTTP_HOST", "127.0.0.1", "GW_HTTP_PORT", String.valueOf(taken.getLocalPort()),
                    "GW_MEMORY_BUDGET_MB", "1000",
                    // its database in a directory of its own, not in the working tree's data/
                    "GW_DATA_DIR", Files.createTempDirectory("farmgate-start-failures").toString())));
            Exception error = assertThrows(Exception.class,
                    () -> GatewayNode.start(config, TestNode.ADMIN).await(60, TimeUnit.SECONDS));
            assertTrue(error.getMessage().startsWith("cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ")
                    && error.getMessage().contains("in use"), error.getMessage());
        }
    }
}
