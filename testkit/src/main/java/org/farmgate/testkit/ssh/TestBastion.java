package org.farmgate.testkit.ssh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.forward.AcceptAllForwardingFilter;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;

/**
 * A jump host for tests: Apache MINA SSHD on a loopback port that forwards ({@code direct-tcpip}) anywhere for user
 * {@code jump}, who logs in with a password or with a key made by {@code ssh-keygen}. Its host key is its own.
 */
public final class TestBastion implements AutoCloseable {

    public static final String USER = "jump";
    public static final String PASSWORD = "hop-password";

    private final SshServer server;
    private final Path dir;

    private TestBastion(SshServer server, Path dir) {
        this.server = server;
        this.dir = dir;
    }

    public static TestBastion start() throws Exception {
        Path dir = Files.createTempDirectory("farmgate-bastion");
        TestSshd.newClientKey(dir.resolve("client"), "jump");
        String allowed = KeyUtils.getFingerPrint(PublicKeyEntry.parsePublicKeyEntry(
                Files.readString(dir.resolve("client.pub")).trim()).resolvePublicKey(null, null, null));
        SshServer server = SshServer.setUpDefaultServer();
        server.setHost("127.0.0.1");
        server.setPort(0);
        server.setKeyPairProvider(new SimpleGeneratorHostKeyProvider());
        server.setPasswordAuthenticator((user, password, session) -> USER.equals(user) && PASSWORD.equals(password));
        server.setPublickeyAuthenticator((user, key, session) -> USER.equals(user)
                && allowed.equals(KeyUtils.getFingerPrint(key)));
        server.setForwardingFilter(AcceptAllForwardingFilter.INSTANCE);
        server.start();
        return new TestBastion(server, dir);
    }

    public int port() {
        return server.getPort();
    }

    /** The private key user {@code jump} may log in with, as its OpenSSH file holds it. */
    public String clientKey() throws IOException {
        return Files.readString(dir.resolve("client"));
    }

    /** Sessions open on it now (hops that were not closed would stay). */
    public int openSessions() {
        return server.getActiveSessions().size();
    }

    @Override
    public void close() throws Exception {
        server.stop(true);
        for (String file : new String[] {"client", "client.pub"}) {
            Files.deleteIfExists(dir.resolve(file));
        }
        Files.deleteIfExists(dir);
    }
}
