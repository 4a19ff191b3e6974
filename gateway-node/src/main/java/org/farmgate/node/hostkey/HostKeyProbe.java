package org.farmgate.node.hostkey;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.future.ConnectFuture;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.signature.BuiltinSignatures;
import org.apache.sshd.common.signature.Signature;
import org.farmgate.error.UnavailableException;
import org.farmgate.error.UpstreamException;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * Reads an SSH server's host key: the key exchange only, no authentication; the connection is closed as soon as the
 * key is seen. One client per node, on Apache MINA SSHD's own non-blocking I/O threads: no event loop waits.
 *
 * <p>A server has several keys and shows one per connection, the first of the client's list it holds. guacd checks
 * the key its libssh2 is shown, so the probe asks in libssh2's order ({@code GW_SSH_HOST_KEY_ORDER}): what it reads
 * is what guacd will be shown, and the key given to guacd as {@code host-key} matches.
 */
public final class HostKeyProbe implements AutoCloseable {

    /** libssh2 1.11's order (OpenSSH's), as guacd 1.6's own image links it. */
    public static final List<String> LIBSSH2_ORDER = List.of("ssh-ed25519", "ecdsa-sha2-nistp256",
            "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521", "rsa-sha2-512", "rsa-sha2-256", "ssh-rsa");

    private static final AttributeRepository.AttributeKey<CompletableFuture<HostKey>> SEEN =
            new AttributeRepository.AttributeKey<>();

    /** Probes at once: each is a connection and a key exchange (a few ms of CPU); more wait for a later request. */
    static final int IN_FLIGHT = 32;

    private final SshClient client;
    private final Duration timeout;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile List<String> order;
    private volatile boolean learnt;

    /** Completes once the order to ask in is known: at once, or when guacd's was learnt (or could not be). */
    private final CompletableFuture<Void> ordered = new CompletableFuture<>();

    /** @param order the host-key algorithms in the order guacd's libssh2 asks for them */
    public HostKeyProbe(List<String> order, Duration timeout) {
        this(order, timeout, false);
    }

    /**
     * @param learning whether probes wait for guacd's own order ({@link #follow}, then {@link #ordered}) before
     *     asking in {@code order}
     */
    public HostKeyProbe(List<String> order, Duration timeout, boolean learning) {
        if (!learning) {
            ordered.complete(null);
        }
        this.timeout = timeout;
        this.order = List.copyOf(order);
        client = SshClient.setUpDefaultClient();
        client.setSignatureFactories(signatures(order));
        client.setServerKeyVerifier((session, address, key) -> {
            CompletableFuture<HostKey> seen = session.getConnectionContext() == null ? null
                    : session.getConnectionContext().getAttribute(SEEN);
            if (seen != null) {
                seen.complete(HostKey.of(key));
            }
            return false; // seen: nothing more is wanted of this server
        });
        client.start();
    }

    /** From now on, asks in this order (guacd's, learnt by {@link GuacdKeyOrder}). */
    public void follow(List<String> order) {
        client.setSignatureFactories(signatures(order));
        this.order = List.copyOf(order);
        learnt = true;
    }

    /** The order asked in now, and whether it is guacd's own (learnt) or the configured one. */
    public Map<String, Object> order() {
        return Map.of("algorithms", order, "learnt_from_guacd", learnt);
    }

    /** The order is settled (learnt, or not learnt and the configured one kept): probes waiting go on. */
    public void ordered() {
        ordered.complete(null);
    }

    /** The names of {@code GW_SSH_HOST_KEY_ORDER}, each checked; an unknown or unsupported one is named. */
    public static List<NamedFactory<Signature>> signatures(List<String> order) {
        List<NamedFactory<Signature>> out = new ArrayList<>();
        for (String name : order) {
            BuiltinSignatures signature = BuiltinSignatures.fromFactoryName(name);
            if (!LIBSSH2_ORDER.contains(name) || signature == null || !signature.isSupported()) {
                throw new IllegalArgumentException("unknown or unsupported SSH host-key algorithm '" + name
                        + "' (known: " + String.join(", ", LIBSSH2_ORDER) + ")");
            }
            out.add(signature);
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no SSH host-key algorithm given");
        }
        return out;
    }

    /** The key the server at {@code address:port} shows; a 502 naming the server when it cannot be read. */
    public CompletionStage<HostKey> probe(InetAddress address, int port) {
        return ordered.thenCompose(ignored -> read(address, port));
    }

    private CompletionStage<HostKey> read(InetAddress address, int port) {
        String where = address.getHostAddress() + ":" + port;
        if (inFlight.incrementAndGet() > IN_FLIGHT) {
            inFlight.decrementAndGet();
            return CompletableFuture.failedFuture(new UnavailableException(IN_FLIGHT + " SSH host keys are being read "
                    + "by this node already; try again in a moment"));
        }
        CompletableFuture<HostKey> seen = new CompletableFuture<>();
        seen.whenComplete((key, error) -> inFlight.decrementAndGet());
        ConnectFuture connecting;
        try {
            connecting = client.connect("farmgate-probe", new InetSocketAddress(address, port),
                    AttributeRepository.ofKeyValuePair(SEEN, seen), null);
        } catch (IOException e) {
            seen.completeExceptionally(unreadable(where, e));
            return seen;
        }
        connecting.addListener(connected -> {
            if (!connected.isConnected()) {
                seen.completeExceptionally(unreadable(where, connected.getException()));
                return;
            }
            ClientSession session = connected.getSession();
            seen.whenComplete((key, error) -> session.close(true));
            session.addCloseFutureListener(closed -> seen.completeExceptionally(new UpstreamException(
                    GuacamoleStatus.UPSTREAM_ERROR, where + " closed the connection before showing an SSH host key "
                    + "(is it an SSH server, with a key of " + client.getSignatureFactoriesNameList() + "?)")));
        });
        return seen.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS).exceptionallyCompose(error -> {
            if (error instanceof TimeoutException) {
                connecting.cancel();
                return CompletableFuture.failedFuture(new UpstreamException(GuacamoleStatus.UPSTREAM_TIMEOUT,
                        where + " did not show an SSH host key within " + timeout.toSeconds() + " s"));
            }
            return CompletableFuture.failedFuture(error);
        });
    }

    private static UpstreamException unreadable(String where, Throwable cause) {
        String reason = cause == null ? "no reason given" : cause.getMessage();
        return new UpstreamException(GuacamoleStatus.UPSTREAM_NOT_FOUND, "could not read the SSH host key of "
                + where + ": " + reason);
    }

    @Override
    public void close() throws IOException {
        client.stop();
    }
}
