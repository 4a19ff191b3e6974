package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.process.ClusterKeys;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/start-node} on a checkout of its own, with a Maven and a Java that only say what they were asked (the
 * real build takes a minute; what is tested here is the script's decision and its lock): nodes started at once
 * build once, and only a change to a source that goes into the node's jar builds again.
 */
class StartNodeScriptTest {

    private static final String[] MODULES = {"shared-model", "session-router", "gateway-node"};

    @TempDir
    Path checkout;
    @TempDir
    Path tools;
    private Path builds;

    @BeforeEach
    void aFreshClone() throws IOException {
        Path script = ClusterKeys.script().resolveSibling("start-node");
        Files.createDirectories(checkout.resolve("bin"));
        Files.copy(script, checkout.resolve("bin/start-node"));
        Instant old = Instant.now().minusSeconds(3600);
        write(checkout.resolve("pom.xml"), "<project/>", old);
        for (String module : MODULES) {
            write(checkout.resolve(module + "/pom.xml"), "<project/>", old);
            write(checkout.resolve(module + "/src/main/java/Main.java"), "class Main {}", old);
            write(checkout.resolve(module + "/src/test/java/MainTest.java"), "class MainTest {}", old);
        }
        builds = tools.resolve("builds");
        // A build as Maven's leaves it: the jar, then what annotation processors generate after it (JMH did).
        executable(tools.resolve("mvn"), """
                #!/bin/sh
                echo "$*" >> "%s"
                sleep 1
                mkdir -p gateway-node/target/generated-sources bench/target/generated-sources
                echo jar > gateway-node/target/farmgate-node.jar
                sleep 0.1
                touch gateway-node/target/generated-sources/Generated.java bench/target/generated-sources/Jmh.java
                """.formatted(builds));
        executable(tools.resolve("java"), "#!/bin/sh\necho \"node started: $*\"\n");
    }

    @Test
    void nodesStartedAtOnceBuildOnce() throws Exception {
        List<Process> starts = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            starts.add(start("--node", String.valueOf(i)));
        }
        for (int i = 1; i <= 3; i++) {
            assertStarted(starts.get(i - 1), "--node " + i);
        }
        assertEquals(List.of("-B -q -DskipTests -pl gateway-node -am install"), builds());
    }

    @Test
    void onlyTheNodesOwnSourcesBuildAgain() throws Exception {
        assertStarted(start(), "");
        assertEquals(1, builds().size(), "a clone without a jar builds");

        assertStarted(start(), "");
        assertEquals(1, builds().size(), "what the build generated after the jar is not a change");

        touch(checkout.resolve("gateway-node/src/test/java/MainTest.java"));
        assertStarted(start(), "");
        assertEquals(1, builds().size(), "a test is not in the jar");

        touch(checkout.resolve("session-router/src/main/java/Main.java"));
        assertStarted(start(), "");
        assertEquals(2, builds().size(), "a source of the jar changed");

        Files.delete(checkout.resolve("gateway-node/target/farmgate-node.jar"));
        assertStarted(start(), "");
        assertEquals(3, builds().size(), "the jar is gone");
    }

    private Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(checkout.resolve("bin/start-node").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("PATH", tools + ":" + System.getenv("PATH"));
        builder.environment().put("TMPDIR", tools.toString()); // the lock of this checkout only
        builder.environment().remove("JAVA_OPTS");
        return builder.start();
    }

    private static void assertStarted(Process start, String args) throws Exception {
        String output = new String(start.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(start.waitFor(30, TimeUnit.SECONDS), output);
        assertEquals(0, start.exitValue(), output);
        assertTrue(output.contains("node started: -jar gateway-node/target/farmgate-node.jar" + (args.isEmpty() ? ""
                : " " + args)), output);
    }

    private List<String> builds() throws IOException {
        return Files.exists(builds) ? Files.readAllLines(builds) : List.of();
    }

    private static void write(Path file, String text, Instant modified) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        Files.setLastModifiedTime(file, FileTime.from(modified));
    }

    private static void touch(Path file) throws IOException {
        Files.setLastModifiedTime(file, FileTime.from(Instant.now().plusSeconds(5)));
    }

    private static void executable(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
