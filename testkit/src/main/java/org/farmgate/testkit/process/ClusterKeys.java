package org.farmgate.testkit.process;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A cluster's secret material made by the project's own {@code bin/farmgate-keys}, so that every clustered test
 * runs with the keys a user would make, and the script is tested by every such test. Made once per directory and
 * node: keytool is slow to start, and the keys do not change between tests.
 */
public final class ClusterKeys {

    private ClusterKeys() {
    }

    /** The repository's {@code bin/farmgate-keys}, found from the working directory (the repository or a module). */
    public static Path script() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path script = dir.resolve("bin/farmgate-keys");
            if (Files.isExecutable(script)) {
                return script;
            }
        }
        throw new IllegalStateException("bin/farmgate-keys not found above " + Path.of("").toAbsolutePath());
    }

    /** {@code dir} with a CA, a truststore, a cluster key and a keystore for each of {@code nodes}. */
    public static synchronized Path ensure(Path dir, List<String> nodes) throws IOException, InterruptedException {
        List<String> missing = new ArrayList<>();
        for (String node : nodes) {
            if (!Files.exists(dir.resolve(node + ".p12"))) {
                missing.add(node);
            }
        }
        if (missing.isEmpty() && Files.exists(dir.resolve("cluster.key"))) {
            return dir;
        }
        run(List.of(script().toString(), "--out", dir.toString(), "--nodes", String.join(",", missing)));
        return dir;
    }

    /** Runs the script with any arguments, e.g. {@code --rotate-key}; fails with its output if it fails. */
    public static String run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }
}
