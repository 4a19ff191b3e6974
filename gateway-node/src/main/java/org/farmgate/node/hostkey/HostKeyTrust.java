package org.farmgate.node.hostkey;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Fact;
import org.farmgate.durable.HostKeyRow;
import org.farmgate.durable.Operation;
import org.farmgate.error.ConflictException;
import org.farmgate.error.NotFoundException;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Identity;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;

/**
 * Which SSH host key each target must show, decided once per session before it is placed, and given to guacd as
 * {@code host-key} so that guacd itself refuses a server whose key is another (the check happens on the connection
 * guacd makes, not on an earlier one a machine in the middle could let through).
 *
 * <p>The key comes from, in order: the session's own ({@code host-key} given by its creator or carried by its
 * address-book entry as {@code host_key}), the cluster's trusted keys (pinned by an admin, or trusted on first use),
 * or — with {@code accept-new} — the key the target shows now, read by the node that places the session and trusted
 * from then on. Two sessions racing to a new target trust one key: the cluster map's put-if-absent decides, and the
 * loser takes the winner's key (a target that showed them different keys is refused by guacd in one of them).
 *
 * <p>The cluster map is the truth while the cluster runs; every change is also a fact for the database, so that a
 * cluster started from nothing trusts what it trusted (a forgotten key does not come back: see V6's comment).
 */
public final class HostKeyTrust {

    static final String ARGUMENT = "host-key";

    /** Told of each key trusted on first use, for the audit log: who made the session that trusted it, from where. */
    @FunctionalInterface
    public interface FirstUses {
        void trusted(Identity creator, String clientAddress, TrustedKey key);
    }

    private final Vertx vertx;
    private final HostKeyPolicy policy;
    private final HostKeyProbe probe;
    private final SharedMap<String, TrustedKey> trusted;
    private final DurableStore store;
    private final FirstUses firstUses;
    private final Clock clock;

    public HostKeyTrust(Vertx vertx, HostKeyPolicy policy, HostKeyProbe probe,
            SharedMap<String, TrustedKey> trusted, DurableStore store, FirstUses firstUses, Clock clock) {
        this.vertx = vertx;
        this.policy = policy;
        this.probe = probe;
        this.trusted = trusted;
        this.store = store;
        this.firstUses = firstUses;
        this.clock = clock;
    }

    public HostKeyPolicy policy() {
        return policy;
    }

    static String key(String host, int port) {
        return host.toLowerCase(Locale.ROOT) + ":" + port;
    }

    /**
     * The session's spec with the key guacd must see as {@code host-key}; unchanged for other protocols or with
     * {@code off}.
     *
     * @param address the target's checked address, which a first-use read connects to (the one guacd is given)
     */
    public Future<SessionSpec> settle(SessionSpec spec, InetAddress address, Identity creator, String sessionId,
            String clientAddress) {
        if (spec.protocol() != Protocol.SSH || policy == HostKeyPolicy.OFF) {
            return Future.succeededFuture(spec);
        }
        String own = spec.parameters().get(ARGUMENT);
        if (own != null) {
            try {
                return Future.succeededFuture(withKey(spec, HostKey.parse("host-key", own)));
            } catch (RuntimeException e) {
                return Future.failedFuture(e);
            }
        }
        return Stages.await(vertx, trusted.get(key(spec.hostname(), spec.port()))).compose(known -> {
            if (known != null) {
                return Future.succeededFuture(withKey(spec, known.key()));
            }
            if (policy == HostKeyPolicy.STRICT) {
                return Future.failedFuture(new ConflictException("no SSH host key is trusted for " + spec.hostname()
                        + ":" + spec.port() + ", and this gateway connects only to known keys (GW_SSH_HOST_KEYS="
                        + "strict): an admin pins it (PUT /api/ssh/known-hosts), or the address-book entry carries "
                        + "it (host_key)"));
            }
            if (!spec.jumpHosts().isEmpty()) {
                // behind jump hosts the key is read through the chain, by the node that opens it (settleThrough)
                return Future.succeededFuture(spec);
            }
            return Stages.await(vertx, probe.probe(address, spec.port()))
                    .compose(shown -> Stages.await(vertx, trustFirst(spec.hostname(), spec.port(), shown, creator,
                            sessionId, clientAddress)))
                    .map(key -> withKey(spec, key));
        });
    }

    /**
     * A target behind jump hosts with no key yet: with {@code accept-new}, the key it shows through the chain's
     * forward ({@code via}), trusted from then on, becomes the session's; otherwise the spec as it is.
     */
    public CompletionStage<SessionSpec> settleThrough(SessionSpec spec, InetSocketAddress via, Identity creator,
            String sessionId, String clientAddress) {
        if (spec.protocol() != Protocol.SSH || policy != HostKeyPolicy.ACCEPT_NEW
                || spec.parameters().containsKey(ARGUMENT)) {
            return CompletableFuture.completedFuture(spec);
        }
        return trusted.get(key(spec.hostname(), spec.port())).thenCompose(known -> known != null
                ? CompletableFuture.completedFuture(known.key()) // trusted since the session was placed
                : probe.probe(via.getAddress(), via.getPort()).thenCompose(shown -> trustFirst(spec.hostname(),
                        spec.port(), shown, creator, sessionId, clientAddress)))
                .thenApply(key -> withKey(spec, key));
    }

    /**
     * Trusts the key a target showed at its first use, unless another was trusted for it a moment ago (then that one
     * stands, and is returned).
     */
    public CompletionStage<HostKey> trustFirst(String host, int port, HostKey shown, Identity creator,
            String sessionId, String clientAddress) {
        TrustedKey first = new TrustedKey(host.toLowerCase(Locale.ROOT), port, shown.openSsh(), shown.fingerprint(),
                TrustedKey.How.FIRST_USE, creator.name(), sessionId, clock.instant());
        return trusted.putIfAbsent(key(host, port), first).thenApply(earlier -> {
            if (earlier != null) {
                return earlier.key(); // another session trusted one a moment ago: that one stands
            }
            kept(first);
            firstUses.trusted(creator, clientAddress, first);
            return shown;
        });
    }

    private static SessionSpec withKey(SessionSpec spec, HostKey key) {
        Map<String, String> parameters = new HashMap<>(spec.parameters());
        parameters.put(ARGUMENT, key.openSsh());
        return spec.withParameters(parameters);
    }

    /**
     * A session built on its node from its address-book entry: the entry's own key if it has one now, else the one
     * settled when the session was placed.
     */
    public static SessionSpec carried(SessionSpec built, SessionSpec placed) {
        String settled = placed.parameters().get(ARGUMENT);
        if (built.parameters().containsKey(ARGUMENT) || settled == null) {
            return built;
        }
        return withKey(built, HostKey.parse("host-key", settled));
    }

    /** Turns a handshake's {@code host-key} (the spec's key) into guacd's line for the address guacd is given. */
    public static void forGuacd(Map<String, String> arguments, String address, int port) {
        arguments.computeIfPresent(ARGUMENT, (name, key) -> HostKey.parse("host-key", key).knownHostsLine(address,
                port));
    }

    /** An admin's pin: the key every later session to the target must see, over any trusted before. */
    public CompletionStage<TrustedKey> pin(String host, int port, String keyText, String by) {
        HostKey key = HostKey.parse("field 'host_key'", keyText);
        TrustedKey pinned = new TrustedKey(host.toLowerCase(Locale.ROOT), port, key.openSsh(), key.fingerprint(),
                TrustedKey.How.PINNED, by, null, clock.instant());
        return trusted.set(key(host, port), pinned).thenApply(ignored -> {
            kept(pinned);
            return pinned;
        });
    }

    /** Forgets the target's key: its next session trusts what it is shown (or, with {@code strict}, is refused). */
    public CompletionStage<TrustedKey> forget(String host, int port, String by) {
        return trusted.remove(key(host, port)).thenApply(removed -> {
            if (removed == null) {
                throw new NotFoundException("no SSH host key is trusted for " + host + ":" + port);
            }
            store.record(new Fact.HostKeyForgotten(removed.host(), removed.port(), by, clock.instant()));
            return removed;
        });
    }

    public CompletionStage<TrustedKey> find(String host, int port) {
        return trusted.get(key(host, port));
    }

    public CompletionStage<List<TrustedKey>> list() {
        return trusted.query(Query.<TrustedKey>all()).thenApply(all -> all.stream()
                .sorted(Comparator.comparing(TrustedKey::host).thenComparingInt(TrustedKey::port)).toList());
    }

    public CompletionStage<HostKey> probe(InetAddress address, int port) {
        return probe.probe(address, port);
    }

    /** The order the probe asks for keys in, and whether it was learnt from guacd. */
    public Map<String, Object> keyOrder() {
        return probe.order();
    }

    private void kept(TrustedKey key) {
        store.record(new Fact.HostKeyKept(new HostKeyRow(key.host(), key.port(), key.hostKey(), key.fingerprint(),
                key.how().wireName(), key.by(), key.sessionId(), key.at())));
    }

    /**
     * Puts the database's trusted keys into a cluster whose map starts empty.
     *
     * @return how many were put back
     */
    public CompletionStage<Integer> restore() {
        if (!store.configured()) {
            return CompletableFuture.completedFuture(0);
        }
        return store.run(Operation.trustedHostKeys()).thenCompose(rows -> {
            CompletionStage<Integer> put = CompletableFuture.completedFuture(0);
            for (HostKeyRow row : rows) {
                TrustedKey key = new TrustedKey(row.host(), row.port(), row.hostKey(), row.fingerprint(),
                        TrustedKey.How.parse(row.how()), row.by(), row.sessionId(), row.at());
                put = put.thenCompose(count -> trusted.set(key(row.host(), row.port()), key)
                        .thenApply(ignored -> count + 1));
            }
            return put;
        });
    }
}
