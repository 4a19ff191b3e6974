package org.farmgate.testkit.process;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.net.Ports;

/** A gateway node started as a separate process, so that it can be killed, paused or measured on its own. */
public final class NodeProcess implements AutoCloseable {

    /** The node's main class, for a launch from a class path that holds the node. */
    public static final String MAIN_CLASS = "org.farmgate.node.Main";
    /** What Hazelcast asks for to use its fast paths; the node's jar says the same in its manifest. */
    private static final List<String> OPENS = List.of("--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens",
            "java.management/sun.management=ALL-UNNAMED", "--add-opens",
            "jdk.management/com.sun.management.internal=ALL-UNNAMED", "--add-exports",
            "java.base/jdk.internal.ref=ALL-UNNAMED");

    /** Where the node's code comes from: its runnable jar, or a class path that holds it. */
    public record Launch(List<String> arguments) {

        public static Launch jar(Path nodeJar) {
            return new Launch(List.of("-jar", nodeJar.toString()));
        }

        public static Launch classPath(String classPath) {
            List<String> arguments = new ArrayList<>(OPENS);
            arguments.addAll(List.of("-cp", classPath, MAIN_CLASS));
            return new Launch(List.copyOf(arguments));
        }

        /** This JVM's own class path: for tools whose module depends on the node. */
        public static Launch ownClassPath() {
            return classPath(System.getProperty("java.class.path"));
        }

        /** A jar when one is named, else this JVM's class path. */
        public static Launch jarOrOwnClassPath(String nodeJar) {
            return nodeJar == null || nodeJar.isBlank() ? ownClassPath() : jar(Path.of(nodeJar));
        }
    }

    private final Process process;
    private final String host;
    private final int httpPort;
    private final Path log;

    private NodeProcess(Process process, String host, int httpPort, Path log) {
        this.process = process;
        this.host = host;
        this.httpPort = httpPort;
        this.log = log;
    }

    /**
     * Starts {@code java [jvmArgs] [the system property farmgate.bench.nodeJvmArgs] <launch>} with {@code env}
     * added to this process's environment, on a free HTTP port unless {@code env} names one, and waits until
     * {@code /api/health} answers. Unless {@code env} sets {@code GW_DRAIN_GRACE_SECS}, its SIGTERM does not wait
     * for sessions to end: the test or tool that stops it holds them itself, and each stop of a node would wait
     * {@link #close()}'s 30 s and then be killed.
     */
    public static NodeProcess start(Launch launch, Map<String, String> env, List<String> jvmArgs, Path log)
            throws IOException, InterruptedException {
        return start(launch, env, jvmArgs, log, List.of(), "127.0.0.1");
    }

    /**
     * {@code taskset -c <cpus>} when the system property {@code farmgate.bench.nodeCpus} names CPUs, else nothing: the
     * hop under test (a node, or the proxy it is compared with) on CPUs of its own, as on its own host, so that the
     * load tools cannot starve it, nor it them.
     */
    public static List<String> hopCpus() {
        String cpus = System.getProperty("farmgate.bench.nodeCpus");
        return cpus == null || cpus.isBlank() ? List.of() : List.of("taskset", "-c", cpus);
    }

    /**
     * Like {@link #start(Launch, Map, List, Path)}, with the java command run through {@code wrapper} (such as
     * {@code ip netns exec fgl-n1}, to run the node on a host of its own) and its HTTP port on {@code host}.
     */
    public static NodeProcess start(Launch launch, Map<String, String> env, List<String> jvmArgs, Path log,
            List<String> wrapper, String host) throws IOException, InterruptedException {
        int port = env.containsKey("GW_HTTP_PORT") ? Integer.parseInt(env.get("GW_HTTP_PORT")) : freePort();
        List<String> command = new ArrayList<>(wrapper);
        command.addAll(hopCpus());
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        String extra = System.getProperty("farmgate.bench.nodeJvmArgs");
        if (extra != null && !extra.isBlank()) {
            command.addAll(List.of(extra.trim().split("\\s+"))); // e.g. a profiler or a class-data archive
        }
        command.addAll(launch.arguments());
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().put("GW_DRAIN_GRACE_SECS", "0");
        // the tools' guacd is synthetic and never reaches a target: there is no SSH host key to read (a tool that has
        // a real server sets it back)
        builder.environment().put("GW_SSH_HOST_KEYS", "off");
        // a node alone keeps history in a data directory: its own, never the working directory of the launcher
        builder.environment().put("GW_DATA_DIR", Files.createTempDirectory("farmgate-node-data").toString());
        builder.environment().putAll(env);
        builder.environment().put("GW_HTTP_PORT", String.valueOf(port));
        builder.environment().putIfAbsent("GW_HTTP_HOST", host);
        NodeProcess node = new NodeProcess(builder.start(), host, port, log);
        node.awaitHealthy(Duration.ofSeconds(60));
        return node;
    }

    public static int freePort() throws IOException {
        return Ports.free();
    }

    public long pid() {
        return process.pid();
    }

    public int httpPort() {
        return httpPort;
    }

    public String baseUrl() {
        return "http://" + host + ":" + httpPort;
    }

    public Path log() {
        return log;
    }

    private void awaitHealthy(Duration timeout) throws InterruptedException, IOException {
        awaitOk("/api/health", timeout, "healthy");
    }

    /**
     * Waits until {@code /api/ready} answers 200: the node joined its cluster, published its registry entry and
     * found its guacd, so that a session created now can be placed (health alone answers before that).
     */
    public void awaitReady(Duration timeout) throws InterruptedException, IOException {
        awaitOk("/api/ready", timeout, "ready");
    }

    private void awaitOk(String path, Duration timeout, String what) throws InterruptedException, IOException {
        HttpClient http = HttpClient.newHttpClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("the node exited with " + process.exitValue() + "; see " + log);
            }
            try {
                HttpResponse<Void> response = http.send(HttpRequest.newBuilder(URI.create(baseUrl() + path))
                        .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IOException("the node did not become " + what + " within " + timeout + "; see " + log);
    }

    /** SIGKILL: the process dies mid-flight, as on a host that loses power. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGSTOP: the JVM freezes mid-flight, as in a long pause of the host or a stop-the-world collection. */
    public void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause}. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IOException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    /** SIGTERM, as a service manager would stop it, then wait. */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
