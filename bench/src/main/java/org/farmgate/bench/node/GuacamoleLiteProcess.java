package org.farmgate.bench.node;

import java.io.IOException;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.farmgate.model.Json;
import org.farmgate.testkit.process.NodeProcess;

/**
 * guacamole-lite, the Node.js Guacamole gateway, as a peer relay in front of the same guacd: installed from npm by
 * {@code bench/scripts/guacamole-lite.sh}, run by {@code bench/guacamole-lite/server.js}. Its clients carry the
 * connection in an AES-256-CBC token, made here as guacamole-lite's own {@code Crypt} makes it.
 */
public final class GuacamoleLiteProcess implements AutoCloseable {

    private static final Path INSTALLED = Path.of("bench", "target", "guacamole-lite", "node_modules");
    private static final Path SERVER = Path.of("bench", "guacamole-lite", "server.js");

    private final Process process;
    private final int port;
    private final byte[] key;

    private GuacamoleLiteProcess(Process process, int port, byte[] key) {
        this.process = process;
        this.port = port;
        this.key = key;
    }

    public static boolean isInstalled() {
        return Files.isDirectory(INSTALLED.resolve("guacamole-lite")) && Files.isRegularFile(SERVER);
    }

    public static GuacamoleLiteProcess start(int guacdPort) throws IOException, InterruptedException {
        byte[] key = new byte[32];
        SecureRandom random = new SecureRandom();
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) ('a' + random.nextInt(26)); // printable: the key travels as an argument
        }
        int port = NodeProcess.freePort();
        ProcessBuilder builder = new ProcessBuilder("node", SERVER.toString(), String.valueOf(port),
                String.valueOf(guacdPort), new String(key, StandardCharsets.US_ASCII))
                .redirectErrorStream(true).redirectOutput(Files.createTempFile("guacamole-lite", ".log").toFile());
        builder.environment().put("NODE_PATH", INSTALLED.toAbsolutePath().toString());
        Process process = builder.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            try (Socket probe = new Socket("127.0.0.1", port)) {
                return new GuacamoleLiteProcess(process, port, key);
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    throw new IOException("guacamole-lite exited with " + process.exitValue());
                }
                Thread.sleep(100);
            }
        }
        process.destroyForcibly();
        throw new IOException("guacamole-lite did not listen on " + port + " within 15 s");
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** The WebSocket path that opens a connection of this protocol with these guacd arguments. */
    public String path(String protocol, Map<String, Object> settings) throws GeneralSecurityException, IOException {
        byte[] iv = new byte[16];
        new SecureRandom().nextBytes(iv);
        Cipher cipher = Cipher.getInstance("AES/CBC/PKCS5Padding");
        cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
        byte[] plain = Json.mapper().writeValueAsBytes(Map.of("connection", Map.of("type", protocol, "settings",
                settings)));
        Base64.Encoder base64 = Base64.getEncoder();
        String token = base64.encodeToString(Json.mapper().writeValueAsBytes(Map.of("iv", base64.encodeToString(iv),
                "value", base64.encodeToString(cipher.doFinal(plain)))));
        return "/?token=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
