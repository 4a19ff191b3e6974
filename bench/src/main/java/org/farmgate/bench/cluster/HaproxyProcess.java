package org.farmgate.bench.cluster;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.process.NodeProcess;

/**
 * Debian's HAProxy in front of local nodes, in HTTP mode (WebSocket upgrades pass through as tunnels). With
 * {@link LocalCluster.Balancing#HINT} a WebSocket that carries farmgate's routing hint (the {@code farmgate_node}
 * cookie or a {@code node} query parameter) goes straight to that node; everything else, and every API call,
 * goes round-robin. Each request is logged with the server that took it.
 */
public final class HaproxyProcess implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path log;

    private HaproxyProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    static HaproxyProcess start(List<String> nodeIds, List<NodeProcess> nodes, LocalCluster.Balancing balancing)
            throws IOException, InterruptedException {
        int port = NodeProcess.freePort();
        Path config = Files.createTempFile("farmgate-haproxy", ".cfg");
        Files.writeString(config, config(port, nodeIds, nodes.stream().map(n -> "127.0.0.1:" + n.httpPort())
                .toList(), balancing));
        Path log = Files.createTempFile("farmgate-haproxy", ".log");
        Process process = new ProcessBuilder("haproxy", "-db", "-f", config.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return new HaproxyProcess(process, port, log);
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        process.destroyForcibly();
        throw new IOException("haproxy did not start; see " + log);
    }

    /** The configuration, as in deploy/haproxy/farmgate.cfg, for these nodes. */
    static String config(int port, List<String> nodeIds, List<String> addresses, LocalCluster.Balancing balancing) {
        List<String> lines = new ArrayList<>(List.of(
                "global",
                "  maxconn 4096",
                "  log stdout format raw local0",
                "defaults",
                "  mode http",
                "  log global",
                // the node's part of a request's time, beside the client's own figures: %Tc to connect to it, %Tr
                // until its answer's headers (a WebSocket's 101 too)
                "  log-format \"%ci %b/%s %ST %HM %HU %Tc %Tr\"",
                "  timeout connect 5s",
                "  timeout client 60s",
                "  timeout server 60s",
                "  timeout tunnel 1h",
                "frontend farmgate",
                "  bind 127.0.0.1:" + port,
                "  default_backend nodes",
                "backend nodes",
                "  balance roundrobin"));
        for (int i = 0; i < nodeIds.size(); i++) {
            String id = nodeIds.get(i);
            if (balancing == LocalCluster.Balancing.HINT) {
                lines.add("  use-server " + id + " if { path_beg /ws/ } { req.cook(farmgate_node) -m str " + id + " }");
                lines.add("  use-server " + id + " if { path_beg /ws/ } { url_param(node) -m str " + id + " }");
            }
        }
        for (int i = 0; i < nodeIds.size(); i++) {
            lines.add("  server " + nodeIds.get(i) + " " + addresses.get(i) + " check inter 2s");
        }
        return String.join("\n", lines) + "\n";
    }

    public int port() {
        return port;
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
