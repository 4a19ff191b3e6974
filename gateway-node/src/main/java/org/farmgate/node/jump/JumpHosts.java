package org.farmgate.node.jump;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.FilePasswordProvider;
import org.apache.sshd.common.util.net.SshdSocketAddress;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.apache.sshd.core.CoreModuleProperties;
import org.farmgate.error.ConflictException;
import org.farmgate.error.GatewayException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.UpstreamException;
import org.farmgate.model.JumpHost;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.hostkey.HostKey;
import org.farmgate.node.hostkey.HostKeyPolicy;
import org.farmgate.node.hostkey.HostKeyTrust;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * Opens the chains of SSH jump hosts that sessions reach their targets through, on the node that runs the session
 * (guacd cannot make hops: the node makes them, as rustguac does, with {@code direct-tcpip} forwards). Each hop's host
 * key is checked as a target's is: the hop's own {@code host_key}, else the key the cluster trusts for it, else with
 * {@code accept-new} the key it shows, trusted from then on. Credentials stay in this node's memory and go only to
 * their hop.
 *
 * <p>Each forward listens on loopback, for one session: the chain is closed when the session stops on this node,
 * when its opening fails half way, and when the node stops. Opening blocks (connections,
 * key exchanges, logins, one after the other, each bounded): it runs on a worker thread, never on an event loop.
 */
public final class JumpHosts implements AutoCloseable {

    /** Hops a session may have: each is a login and a key exchange at every session's start. */
    public static final int MAX_HOPS = 5;

    private static final AttributeRepository.AttributeKey<Expectation> EXPECTED =
            new AttributeRepository.AttributeKey<>();

    /** The key a hop must show (null: any, to be trusted), and the key it showed. */
    private record Expectation(HostKey key, CompletableFuture<HostKey> shown) {
    }

    private final SshClient client;
    private final HostKeyTrust trust;
    private final Duration timeout;
    private final Map<String, JumpChain> open = new ConcurrentHashMap<>();

    public JumpHosts(HostKeyTrust trust, Duration timeout) {
        this.trust = trust;
        this.timeout = timeout;
        client = SshClient.setUpDefaultClient();
        // a login is several short round trips: without it each waits for the peer's delayed ACK (measured: 160 ms
        // a hop against OpenSSH on loopback)
        CoreModuleProperties.TCP_NODELAY.set(client, true);
        client.setServerKeyVerifier((session, address, key) -> {
            Expectation expected = session.getConnectionContext().getAttribute(EXPECTED);
            HostKey shown = HostKey.of(key);
            expected.shown().complete(shown);
            return expected.key() == null || expected.key().equals(shown);
        });
        client.start();
    }

    /** Where guacd connects for a session behind jump hosts, and the spec it is given (with the target's key). */
    public record Opened(InetSocketAddress local, SessionSpec spec) {
    }

    /**
     * Opens session {@code sessionId}'s chain (blocking: a worker's job) and returns where guacd connects. A target
     * whose key is not known yet has it read through the chain and trusted, with {@code accept-new}.
     *
     * @param first the first hop's address, checked against the allow-list by the caller
     */
    public Opened open(String sessionId, SessionSpec spec, InetAddress first, Identity creator,
            String clientAddress) {
        InetSocketAddress local = chain(sessionId, spec, first, creator, clientAddress);
        try {
            return new Opened(local, await(trust.settleThrough(spec, local, creator, sessionId, clientAddress)));
        } catch (RuntimeException e) {
            closeChain(sessionId);
            throw e;
        }
    }

    private InetSocketAddress chain(String sessionId, SessionSpec spec, InetAddress first, Identity creator,
            String clientAddress) {
        List<JumpHost> hops = spec.jumpHosts();
        List<ClientSession> sessions = new ArrayList<>();
        try {
            InetSocketAddress next = new InetSocketAddress(first, hops.get(0).port());
            for (int i = 0; i < hops.size(); i++) {
                JumpHost hop = hops.get(i);
                ClientSession session = hop(i + 1, hop, next, creator, sessionId, clientAddress);
                sessions.add(session);
                boolean last = i == hops.size() - 1;
                SshdSocketAddress remote = last ? new SshdSocketAddress(spec.hostname(), spec.port())
                        : new SshdSocketAddress(hops.get(i + 1).hostname(), hops.get(i + 1).port());
                SshdSocketAddress bound = session.startLocalPortForwarding(new SshdSocketAddress("127.0.0.1", 0),
                        remote);
                next = new InetSocketAddress(InetAddress.getLoopbackAddress(), bound.getPort());
            }
            JumpChain chain = new JumpChain(sessions, next);
            JumpChain earlier = open.putIfAbsent(sessionId, chain);
            if (earlier != null) {
                chain.close(); // asked again after a late answer: the session and its chain are open already
                return earlier.local();
            }
            return next;
        } catch (IOException e) {
            new JumpChain(sessions, null).close();
            throw new UpstreamException(GuacamoleStatus.UPSTREAM_ERROR, "could not forward through the jump hosts: "
                    + e.getMessage());
        } catch (RuntimeException e) {
            new JumpChain(sessions, null).close();
            throw e;
        }
    }

    /** Connects to, checks and logs in to hop {@code n} (counted from 1) at {@code address}. */
    private ClientSession hop(int n, JumpHost hop, InetSocketAddress address, Identity creator, String sessionId,
            String clientAddress) {
        String name = "jump host " + n + " (" + hop.where() + ")";
        HostKey expected = expectedKey(n, hop);
        Expectation expectation = new Expectation(expected, new CompletableFuture<>());
        ClientSession session;
        try {
            session = client.connect(hop.username(), address, AttributeRepository.ofKeyValuePair(EXPECTED,
                    expectation), null).verify(timeout.toMillis()).getSession();
        } catch (IOException e) {
            throw new UpstreamException(GuacamoleStatus.UPSTREAM_NOT_FOUND, name + " cannot be reached: "
                    + e.getMessage());
        }
        try {
            session.setUsername(hop.username());
            if (hop.password() != null && !hop.password().isEmpty()) {
                session.addPasswordIdentity(hop.password());
            }
            if (hop.privateKey() != null && !hop.privateKey().isEmpty()) {
                for (KeyPair pair : keys(n, hop)) {
                    session.addPublicKeyIdentity(pair);
                }
            }
            try {
                session.auth().verify(timeout.toMillis());
            } catch (IOException e) {
                throw refusedKeyOr(name, expectation, expectation.shown().isDone()
                        ? new UpstreamException(GuacamoleStatus.UPSTREAM_ERROR, name + " refused user '"
                                + hop.username() + "': " + e.getMessage())
                        // reached through the hop before it, which could not connect on: it said no more
                        : new UpstreamException(GuacamoleStatus.UPSTREAM_NOT_FOUND, name + " cannot be reached "
                                + "from jump host " + (n - 1)));
            }
            HostKey shown = expectation.shown().getNow(null);
            if (expected == null && shown != null && trust.policy() == HostKeyPolicy.ACCEPT_NEW) {
                HostKey standing = await(trust.trustFirst(hop.hostname(), hop.port(), shown, creator, sessionId,
                        clientAddress));
                if (!standing.equals(shown)) {
                    throw changed(name, standing, shown);
                }
            }
            return session;
        } catch (RuntimeException e) {
            session.close(true);
            throw e;
        }
    }

    /** A connection the hop closed after showing a key other than the expected one: that, rather than the close. */
    private static RuntimeException refusedKeyOr(String name, Expectation expectation, RuntimeException otherwise) {
        HostKey shown = expectation.shown().getNow(null);
        if (expectation.key() != null && shown != null && !expectation.key().equals(shown)) {
            return changed(name, expectation.key(), shown);
        }
        return otherwise;
    }

    private static UpstreamException changed(String name, HostKey trusted, HostKey shown) {
        return new UpstreamException(GuacamoleStatus.UPSTREAM_ERROR, "the SSH host key of " + name + " is not the "
                + "one trusted for it (trusted " + trusted.fingerprint() + ", shown " + shown.fingerprint() + "): it "
                + "was reinstalled, or something is between the gateway and it");
    }

    /** The hop's own key, else the cluster's for it; null when any may be trusted. */
    private HostKey expectedKey(int n, JumpHost hop) {
        if (hop.hostKey() != null && !hop.hostKey().isBlank()) {
            return HostKey.parse("field 'jump_hosts[" + (n - 1) + "].host_key'", hop.hostKey());
        }
        if (trust.policy() == HostKeyPolicy.OFF) {
            return null;
        }
        HostKey known = await(trust.find(hop.hostname(), hop.port()).thenApply(found -> found == null ? null
                : found.key()));
        if (known == null && trust.policy() == HostKeyPolicy.STRICT) {
            throw new ConflictException("no SSH host key is trusted for jump host " + n + " (" + hop.where()
                    + "), and this gateway connects only to known keys (GW_SSH_HOST_KEYS=strict): an admin pins it "
                    + "(PUT /api/ssh/known-hosts), or the hop carries it (host_key)");
        }
        return known;
    }

    /** The hop's key pairs, read in full here (the parser reads lazily), or a 400 naming the field. */
    private static List<KeyPair> keys(int n, JumpHost hop) {
        List<KeyPair> out = new ArrayList<>();
        try {
            Iterable<KeyPair> read = SecurityUtils.loadKeyPairIdentities(null, NamedResource.ofName("jump host " + n
                    + "'s key"), new ByteArrayInputStream(hop.privateKey().getBytes(StandardCharsets.UTF_8)),
                    FilePasswordProvider.EMPTY);
            if (read != null) {
                read.forEach(out::add);
            }
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            out.clear();
        }
        if (out.isEmpty()) {
            throw new InvalidRequestException("field 'jump_hosts[" + (n - 1) + "].private_key' is not a private key "
                    + "the node can read (OpenSSH or PEM, without a passphrase)");
        }
        return out;
    }

    private <T> T await(java.util.concurrent.CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UpstreamException(GuacamoleStatus.UPSTREAM_ERROR, "interrupted");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof GatewayException gateway ? gateway
                    : new UpstreamException(GuacamoleStatus.UPSTREAM_ERROR, String.valueOf(e.getCause()));
        } catch (TimeoutException e) {
            throw new UpstreamException(GuacamoleStatus.UPSTREAM_TIMEOUT, "the cluster did not answer in time");
        }
    }

    /** Closes the session's chain, if it has one: it stopped here, or its opening failed after the chain. */
    public void closeChain(String sessionId) {
        JumpChain chain = open.remove(sessionId);
        if (chain != null) {
            chain.close();
        }
    }

    /** Chains open now: for tests and metrics. */
    public int openChains() {
        return open.size();
    }

    @Override
    public void close() throws IOException {
        open.keySet().forEach(this::closeChain);
        client.stop();
    }
}
