package org.farmgate.node.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.process.ClusterKeys;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster CA rotates in three rolls: trust the new CA beside the old, give nodes certificates of the new CA, drop
 * the old CA. At each step a node that has rolled and one that has not still speak mutual TLS to each other, both
 * ways, with the node's own files (the PKCS#12 keystore and truststore that {@link ClusterSecurity#mutualTls} gives
 * the event bus and the relay listener); a node of the first stage and one of the last share no CA and do not.
 */
class CaRotationTest {

    @TempDir
    Path dir;

    @Test
    void eachStepOfACaRotationKeepsRolledAndUnrolledNodesTalking() throws Exception {
        Path oldCa = keys("old");
        Path newCa = keys("new");
        // The operator's step 1, on a copy of the old directory (the old stage must stay as it was, for the test).
        Path both = dir.resolve("both");
        Files.createDirectories(both);
        try (var files = Files.list(oldCa)) {
            for (Path file : files.toList()) {
                Files.copy(file, both.resolve(file.getFileName()));
            }
        }
        ClusterKeys.run(List.of(ClusterKeys.script().toString(), "--out", both.toString(), "--trust",
                newCa.resolve("ca.pem").toString()));
        List<Stage> stages = List.of(
                new Stage(oldCa, oldCa),   // before
                new Stage(oldCa, both),    // 1: the new CA trusted beside the old
                new Stage(newCa, both),    // 2: certificates of the new CA
                new Stage(newCa, newCa));  // 3: the old CA dropped
        assertTrue(talk(stages.get(0), stages.get(0)), "two nodes of one stage do not talk: the harness is wrong");
        for (int i = 0; i + 1 < stages.size(); i++) {
            assertTrue(talk(stages.get(i), stages.get(i + 1)), "stage " + i + " to stage " + (i + 1));
            assertTrue(talk(stages.get(i + 1), stages.get(i)), "stage " + (i + 1) + " to stage " + i);
        }
        assertFalse(talk(stages.get(0), stages.get(3)), "a node of the old CA only accepted one of the new only");
        assertFalse(talk(stages.get(3), stages.get(0)), "a node of the new CA only accepted one of the old only");
    }

    /** One node's files at a stage: its certificate from {@code certificates}, the CAs it trusts from {@code trust}. */
    private record Stage(Path certificates, Path trust) {

        ClusterSecurity security() throws Exception {
            return new ClusterSecurity(certificates.resolve("node-1.p12"), password(certificates),
                    trust.resolve("truststore.p12"), password(trust), List.of(new byte[32]), false, 0, 0, 0, 0,
                    TlsEngine.JDK);
        }

        private static String password(Path keys) throws Exception {
            return Files.readString(keys.resolve("password")).trim();
        }
    }

    /**
     * Whether a node at {@code client} and one at {@code server} complete a mutual TLS handshake and exchange a
     * byte, with the JDK's TLS fed the same PKCS#12 files the node gives Vert.x (its {@code PfxOptions}).
     */
    private static boolean talk(Stage server, Stage client) throws Exception {
        SSLContext serverTls = context(server.security());
        SSLContext clientTls = context(client.security());
        try (SSLServerSocket listening = (SSLServerSocket) serverTls.getServerSocketFactory().createServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            listening.setNeedClientAuth(true);
            java.util.concurrent.CompletableFuture<Boolean> served = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> {
                        try (SSLSocket peer = (SSLSocket) listening.accept()) {
                            peer.setSoTimeout(5000);
                            peer.startHandshake();
                            peer.getOutputStream().write(1);
                            peer.getOutputStream().flush();
                            return true;
                        } catch (java.io.IOException e) {
                            return false;
                        }
                    });
            boolean connected;
            try (SSLSocket socket = (SSLSocket) clientTls.getSocketFactory().createSocket("127.0.0.1",
                    listening.getLocalPort())) {
                socket.setSoTimeout(5000);
                socket.startHandshake();
                connected = socket.getInputStream().read() == 1;
            } catch (java.io.IOException e) {
                connected = false;
            }
            return served.get(10, TimeUnit.SECONDS) && connected;
        }
    }

    private static SSLContext context(ClusterSecurity security) throws Exception {
        KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keys.init(store(security.keystore(), security.keystorePassword()), security.keystorePassword().toCharArray());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store(security.truststore(), security.truststorePassword()));
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
        return context;
    }

    private static KeyStore store(Path file, String password) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(file)) {
            store.load(in, password.toCharArray());
        }
        return store;
    }

    private Path keys(String name) throws Exception {
        Path out = dir.resolve(name);
        ClusterKeys.run(List.of(ClusterKeys.script().toString(), "--out", out.toString(), "--nodes", "node-1"));
        return out;
    }
}
