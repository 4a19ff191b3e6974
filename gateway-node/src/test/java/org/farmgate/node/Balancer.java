package org.farmgate.node;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;

/**
 * Debian's HAProxy in front of some nodes, round robin, as a plain load balancer is: it knows nothing of sessions,
 * checks each node's health every 300 ms and sends a request a dead node refused to another.
 */
final class Balancer implements AutoCloseable {

    static final Path BINARY = Path.of("/usr/sbin/haproxy");

    private final Process process;
    private final Path config;
    final int port;

    static boolean isInstalled() {
        return Files.isExecutable(BINARY);
    }

    Balancer(List<TestNode> nodes) throws Exception {
        this.port = TestNode.freePort();
        StringBuilder text = new StringBuilder("""
                global
                  maxconn 512
                defaults
                  mode http
                  timeout connect 1s
                  timeout client 60s
                  timeout server 60s
                  timeout tunnel 60s
                  retries 3
                  option redispatch
                frontend public
                """).append("  bind 127.0.0.1:").append(port).append("""

                  default_backend nodes
                backend nodes
                  balance roundrobin
                  option httpchk GET /api/health
                """);
        for (TestNode node : nodes) {
            text.append("  server n").append(node.port()).append(" 127.0.0.1:").append(node.port())
                    .append(" check inter 300 fall 1 rise 2\n");
        }
        this.config = Files.createTempFile("farmgate-haproxy", ".cfg");
        Files.writeString(config, text);
        this.process = new ProcessBuilder(BINARY.toString(), "-db", "-f", config.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Awaitility.await("haproxy listens").atMost(Duration.ofSeconds(10)).until(this::listens);
    }

    private boolean listens() {
        if (!process.isAlive()) {
            throw new IllegalStateException("haproxy exited with " + process.exitValue());
        }
        try (Socket socket = new Socket("127.0.0.1", port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        process.waitFor();
        Files.deleteIfExists(config);
    }
}
