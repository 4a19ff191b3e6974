package org.farmgate.bench.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Hosts of their own on this machine: network namespaces on one bridge, made and removed by
 * {@code bench/scripts/netns-lab}, for the fault campaign and the control plane's measurement. This machine is
 * {@link #ROOT} on the bridge; host K is 10.78.0.(10+K).
 */
public final class NetnsLab implements AutoCloseable {

    public static final String ROOT = "10.78.0.1";

    private final Path script;

    private NetnsLab(Path script) {
        this.script = script;
    }

    /** Why the lab cannot be made here (not root, no iproute2, no namespaces), or null when it can. */
    public static String unavailable() {
        Path script = script();
        if (script == null) {
            return "bench/scripts/netns-lab not found from " + Path.of("").toAbsolutePath();
        }
        try {
            Result check = run(script, "check");
            return check.exit() == 0 ? null : check.output().trim();
        } catch (IOException e) {
            return e.getMessage();
        }
    }

    public static NetnsLab up(int hosts) throws IOException {
        NetnsLab lab = new NetnsLab(script());
        lab.must("up", String.valueOf(hosts));
        return lab;
    }

    public static String host(int k) {
        return "10.78.0." + (10 + k);
    }

    /** The command prefix that runs a process on host {@code k}. */
    public static List<String> on(int k) {
        return List.of("ip", "netns", "exec", "fgl-n" + k);
    }

    /** Unplugs host {@code k}: a partition, it reaches nobody and nobody reaches it. */
    public void cut(int k) throws IOException {
        must("cut", String.valueOf(k));
    }

    public void heal(int k) throws IOException {
        must("heal", String.valueOf(k));
    }

    @Override
    public void close() throws IOException {
        must("down");
    }

    private void must(String... arguments) throws IOException {
        Result result = run(script, arguments);
        if (result.exit() != 0) {
            throw new IOException("netns-lab " + String.join(" ", arguments) + ": " + result.output().trim());
        }
    }

    private record Result(int exit, String output) {
    }

    private static Result run(Path script, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of("sh", script.toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new Result(process.waitFor(), output);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** The script, looked for from the working directory up (the repository root, or a module of it). */
    private static Path script() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("bench/scripts/netns-lab");
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return null;
    }
}
