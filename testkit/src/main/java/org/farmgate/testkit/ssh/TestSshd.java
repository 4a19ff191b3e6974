package org.farmgate.testkit.ssh;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.farmgate.testkit.net.Ports;

/**
 * Debian's OpenSSH server on a loopback port, with host keys of its own made for it ({@code ssh-keygen}), so that a
 * test knows the keys a real server shows; the user running the test logs in with a key made for it, and may forward
 * ({@code direct-tcpip}), so that it serves as a real jump host too. Started again with new keys, it is a machine
 * that was reinstalled, or one that someone put in its place. Needs {@code openssh-server} (the test skips without
 * it: {@link #isInstalled}).
 */
public final class TestSshd implements AutoCloseable {

    private static final Path SSHD = Path.of("/usr/sbin/sshd");
    private static final Path KEYGEN = Path.of("/usr/bin/ssh-keygen");

    private final Path dir;
    private final int port;
    private final List<String> types;
    private Process process;

    private TestSshd(Path dir, int port, List<String> types) {
        this.dir = dir;
        this.port = port;
        this.types = List.copyOf(types);
    }

    public static boolean isInstalled() {
        return Files.isExecutable(SSHD) && Files.isExecutable(KEYGEN);
    }

    /** A server with fresh keys of these types ({@code ed25519}, {@code ecdsa}, {@code rsa}). */
    public static TestSshd start(String... types) throws IOException, InterruptedException {
        int port = Ports.free();
        TestSshd sshd = new TestSshd(Files.createTempDirectory("farmgate-sshd"), port, List.of(types));
        sshd.newKeys();
        sshd.run();
        return sshd;
    }

    public int port() {
        return port;
    }

    /** The public key of that type, as its {@code .pub} file holds it ({@code ssh-ed25519 AAAA... comment}). */
    public String publicKey(String type) throws IOException {
        return Files.readString(dir.resolve("key_" + type + ".pub")).trim();
    }

    /** The key's fingerprint as {@code ssh-keygen -lf} prints it ({@code SHA256:...}). */
    public String fingerprint(String type) throws IOException, InterruptedException {
        String printed = exec(List.of(KEYGEN.toString(), "-lf", dir.resolve("key_" + type + ".pub").toString()));
        return printed.split("\\s+")[1];
    }

    /** Who may log in (with {@link #clientKey}): the user running the test. */
    public String user() {
        return System.getProperty("user.name");
    }

    /** The private key {@link #user} logs in with, as its OpenSSH file holds it. */
    public String clientKey() throws IOException {
        return Files.readString(dir.resolve("client"));
    }

    /** Stops, makes new host keys and starts again on the same port: the same machine, reinstalled. */
    public void reinstall() throws IOException, InterruptedException {
        stop();
        newKeys();
        run();
    }

    private void newKeys() throws IOException, InterruptedException {
        for (String type : types) {
            Files.deleteIfExists(dir.resolve("key_" + type));
            Files.deleteIfExists(dir.resolve("key_" + type + ".pub"));
            exec(List.of(KEYGEN.toString(), "-q", "-t", type, "-N", "", "-C", "farmgate-test",
                    "-f", dir.resolve("key_" + type).toString()));
        }
    }

    private void run() throws IOException, InterruptedException {
        Files.createDirectories(Path.of("/run/sshd")); // its privilege separation directory
        if (!Files.exists(dir.resolve("client"))) {
            newClientKey(dir.resolve("client"), "farmgate-client");
            Files.copy(dir.resolve("client.pub"), dir.resolve("authorized_keys"));
        }
        // the user running the test logs in with the client key (root included: keys only), and may forward
        StringBuilder config = new StringBuilder("ListenAddress 127.0.0.1\nPort " + port + "\nPidFile "
                + dir.resolve("sshd.pid") + "\nUsePAM no\nStrictModes no\nPasswordAuthentication no\n"
                + "AuthorizedKeysFile " + dir.resolve("authorized_keys") + "\nPermitRootLogin prohibit-password\n"
                + "AllowTcpForwarding yes\n");
        for (String type : types) {
            config.append("HostKey ").append(dir.resolve("key_" + type)).append('\n');
        }
        Path file = dir.resolve("sshd_config");
        Files.writeString(file, config);
        process = new ProcessBuilder(SSHD.toString(), "-D", "-e", "-f", file.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("sshd.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("sshd stopped at once: " + Files.readString(dir.resolve("sshd.log")));
            }
            try (Socket socket = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(50);
            }
        }
        throw new IOException("sshd did not listen on port " + port + " within 10 s");
    }

    private void stop() throws InterruptedException {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /** An Ed25519 key pair without a passphrase, at {@code file} and {@code file.pub}. */
    static void newClientKey(Path file, String comment) throws IOException, InterruptedException {
        exec(List.of(KEYGEN.toString(), "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", file.toString()));
    }

    private static String exec(List<String> command) throws IOException, InterruptedException {
        Process run = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(run.getInputStream().readAllBytes());
        if (!run.waitFor(30, TimeUnit.SECONDS) || run.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        stop();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
