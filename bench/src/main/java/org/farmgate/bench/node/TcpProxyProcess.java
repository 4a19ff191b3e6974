package org.farmgate.bench.node;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.process.NodeProcess;

/**
 * HAProxy in plain TCP mode between a client and a server: the cheapest relay hop this machine can make, against
 * which the gateway's own hop is judged. Needs Debian's {@code haproxy}; {@link #isAvailable()} says whether it is.
 */
public final class TcpProxyProcess implements AutoCloseable {

    private final Process process;
    private final int port;

    private TcpProxyProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    public static boolean isAvailable() {
        try {
            return new ProcessBuilder("haproxy", "-v").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    public static TcpProxyProcess start(int targetPort) throws IOException, InterruptedException {
        int port = NodeProcess.freePort();
        Path config = Files.createTempFile("farmgate-bench-haproxy", ".cfg");
        Files.writeString(config, String.join("\n",
                "global",
                "  maxconn 4096",
                "defaults",
                "  mode tcp",
                "  timeout connect 5s",
                "  timeout client 1h",
                "  timeout server 1h",
                "frontend in",
                "  bind 127.0.0.1:" + port,
                "  default_backend out",
                "backend out",
                "  server guacd 127.0.0.1:" + targetPort,
                ""));
        List<String> command = new ArrayList<>(NodeProcess.hopCpus()); // on the node's CPUs, when it is pinned
        command.addAll(List.of("haproxy", "-db", "-f", config.toString()));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return new TcpProxyProcess(process, port);
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        process.destroyForcibly();
        throw new IOException("haproxy did not start listening on " + port);
    }

    public int port() {
        return port;
    }

    /** HAProxy's process (taskset, when pinned, executes it in its place), for its CPU. */
    public long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
