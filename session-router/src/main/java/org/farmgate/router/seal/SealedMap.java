package org.farmgate.router.seal;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.farmgate.error.Failures;
import org.farmgate.error.GatewayException;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.SharedStateUnavailableException;
import org.farmgate.router.store.Update;
import org.farmgate.router.store.Voucher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared map whose every value is sealed with the cluster key, with a revision, and checked on every read: a record
 * that does not open (forged, garbled, moved from another key or map) is treated as absent, and so is one older than
 * the latest write of its entry this node heard of (a copy put back: {@link Fences}); both are counted, and logged
 * once per key. A member without the key can still delete or garble entries (only network isolation stops that) but
 * can make no record that grants access, routes a relay or places a session, and can bring back none that did.
 *
 * <p>Updates and queries run on the member that owns the entry, with that member's installed {@link Seal}. An
 * update travels signed, and an owner applies only an update that opens, so no member can have its own values
 * sealed by an owner that holds the key; query results come back sealed and are opened again here, so a member
 * that owns a partition cannot answer with records of its own making either. An owner that answers an update as
 * none of ours would, or refuses it as a replay, fails the call as unavailable: nothing is decided on its word.
 *
 * <p>{@code absenceGrants} marks a map whose missing entry allows more than a present one (a user's places): an
 * update there is not decided on an entry missing since a write this node heard of, since a member on the cluster
 * network can delete one.
 */
public final class SealedMap<V extends Serializable> implements SharedMap<String, V> {

    private static final Logger LOG = LoggerFactory.getLogger(SealedMap.class);
    private static final int LOGGED_KEYS = 1024;

    /** Told of every record that was not believed, and why: {@code forged} or {@code replayed}. */
    @FunctionalInterface
    public interface RejectionCounter {
        void rejected(String map, String reason);
    }

    /**
     * How a map's records live: whether absence grants more, how old a record may be at most (null: any age), whether
     * a record grants access at all (no write of a map whose records grant nothing is fenced, whatever the update:
     * session records, of which the node that holds the session is the truth; the address book's load lease), and who
     * must hear of a write that narrows: every node, since a record read anywhere grants (a token, a share), or only
     * the members that keep the entry ({@code ownerDecides}): what its records grant is decided by an update on the
     * entry's owner, and a read elsewhere is advice the owner checks again (a node's reservations, a user's places).
     */
    public record Policy(boolean absenceGrants, Duration longestLife, boolean grantsAccess, boolean ownerDecides) {

        private static final int GRANTS_NOTHING_BIT = 1;
        private static final int OWNER_DECIDES_BIT = 2;
        private static final int ABSENCE_GRANTS_BIT = 4;

        public static final Policy DEFAULT = new Policy(false, null, true, false);
        public static final Policy GRANTS_NOTHING = new Policy(false, null, false, false);
        public static final Policy DECIDED_BY_OWNER = new Policy(false, null, true, true);

        /** A map whose writes every node hears of. */
        public Policy(boolean absenceGrants, Duration longestLife, boolean grantsAccess) {
            this(absenceGrants, longestLife, grantsAccess, false);
        }

        /**
         * The policy as a signed order carries it, in a few bytes (every update is signed, and Java serialization
         * would describe a record's class in each): 0 and 0 is {@link #DEFAULT}, which is also what an order of the
         * version before, without them, reads as.
         */
        int flags() {
            return (grantsAccess ? 0 : GRANTS_NOTHING_BIT) | (ownerDecides ? OWNER_DECIDES_BIT : 0)
                    | (absenceGrants ? ABSENCE_GRANTS_BIT : 0);
        }

        long lifeMillis() {
            return longestLife == null ? 0 : longestLife.toMillis();
        }

        static Policy of(int flags, long lifeMillis) {
            return new Policy((flags & ABSENCE_GRANTS_BIT) != 0, lifeMillis <= 0 ? null : Duration.ofMillis(lifeMillis),
                    (flags & GRANTS_NOTHING_BIT) == 0, (flags & OWNER_DECIDES_BIT) != 0);
        }

        /** The fence of a write at {@code revision}: it lasts as long as a record that old could be alive. */
        Fences.Fence fence(String map, String key, long revision, boolean present) {
            return new Fences.Fence(map, key, revision, present, longestLife == null ? 0
                    : RevisionClock.millisOf(revision) + longestLife.toMillis());
        }
    }

    private final String name;
    private final SharedMap<String, Object> inner;
    private final Seal seal;
    private final Fences fences;
    private final Policy policy;
    private final RejectionCounter rejections;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();
    private final AppliedOrders shown = new AppliedOrders(System::currentTimeMillis);

    /**
     * Lends {@code member} what the sealed updates and queries it runs on the entries it owns need: the seal, the
     * node's {@link Fences} and the revision clock they move (an owner holds to the writes it made itself), and a
     * record of the orders it applied.
     */
    public static MemberContext lend(MemberContext member, Seal seal, Fences fences) {
        return member.lend(seal).lend(fences).lend(fences.clock()).lend(new AppliedOrders(System::currentTimeMillis));
    }

    /** @param inner the map as it lies in the cluster: sealed records, or anything a stranger put there */
    public SealedMap(String name, SharedMap<String, Object> inner, Seal seal, Fences fences, Policy policy,
            RejectionCounter rejections) {
        this.name = name;
        this.inner = inner;
        this.seal = seal;
        this.fences = fences;
        this.policy = policy;
        this.rejections = rejections;
    }

    @Override
    public CompletionStage<V> get(String key) {
        long asked = fences.mark();
        return trusted(inner.get(key).thenApply(sealed -> open(sealed, key, asked)), key);
    }

    @Override
    public CompletionStage<Void> set(String key, V value) {
        return update(key, new Put<>(value, null));
    }

    @Override
    public CompletionStage<Void> set(String key, V value, Duration ttl) {
        return update(key, new Put<>(value, ttl));
    }

    @Override
    public CompletionStage<V> putIfAbsent(String key, V value) {
        return update(key, new PutIfAbsent<>(value));
    }

    @Override
    public CompletionStage<V> remove(String key) {
        return update(key, new Take<>());
    }

    @Override
    public <R> CompletionStage<R> update(String key, Update<V, R> update) {
        Fences.Fence known = fences.of(name, key);
        SealedUpdate.Order<V, R> order = new SealedUpdate.Order<>(update, known == null ? 0 : known.revision(),
                policy.absenceGrants() && known != null && known.present(), policy);
        Sealed signed = seal.sign(SealedUpdate.updates(name), key, fences.clock().next(0), order);
        return trusted(inner.update(key, new SealedUpdate<V, R>(name, key, signed)).thenApply(answer -> {
            if (!(answer instanceof Revised<?> revised)) {
                throw new SharedStateUnavailableException("map " + name + ": the member that owns key " + key
                        + " did not answer as a node of this cluster does (a member without the cluster key)");
            }
            if (revised.refused() != null) {
                rejections.rejected(name, "replayed");
                throw new SharedStateUnavailableException("map " + name + ", key " + key + ": " + revised.refused());
            }
            if (revised.fenced() && policy.grantsAccess()) {
                Fences.Fence fence = policy.fence(name, key, revised.revision(), revised.present());
                if (policy.ownerDecides()) {
                    fences.learn(fence); // the owner and its backups hold to it; no other node decides on the entry
                } else {
                    fences.wrote(fence);
                }
            }
            @SuppressWarnings("unchecked")
            R result = (R) revised.result();
            return result;
        }), key);
    }

    /**
     * A failure from the member that owns the entry is its word, which may be anything (a member without the key
     * throws what it likes): only our own refusals pass as they are, the rest is unavailable state, with the cause
     * logged, since a fault of ours would look the same.
     */
    private <T> CompletionStage<T> trusted(CompletionStage<T> stage, String key) {
        return stage.handle((value, error) -> {
            if (error == null) {
                return value;
            }
            Throwable cause = Failures.cause(error);
            if (cause instanceof GatewayException known) {
                throw known;
            }
            if (logged.size() < LOGGED_KEYS && logged.add("failed\0" + cause.getClass().getName())) {
                LOG.warn("map {}, key {}: the call failed on the member that owns the entry (logged once per kind of "
                        + "failure and map)", name, key, cause);
            } else {
                LOG.debug("map {}, key {}: the call failed on the member that owns the entry", name, key, cause);
            }
            throw new SharedStateUnavailableException("map " + name + ": the member that owns key " + key
                    + " failed the call (" + cause.getClass().getSimpleName() + ")");
        });
    }

    /**
     * A voucher is believed once, and only within {@link AppliedOrders#WINDOW} of its making: it is shown at once (a
     * session opened after its place was granted), and a copy shown again must not stand for a decision the entry
     * may have undone since (the place given back). Shown again, by a caller repeating itself too, it is not believed,
     * and the caller reads the entry.
     */
    @Override
    public boolean vouched(String key, String statement, Voucher voucher) {
        if (voucher == null) {
            return false;
        }
        if (!name.equals(voucher.map()) || !key.equals(voucher.key()) || !statement.equals(voucher.statement())
                || !seal.vouches(voucher)) {
            reject(key, "forged", "was vouched for with a voucher that is not its owner's word for it; the entry is "
                    + "read instead");
            return false;
        }
        if (!shown.firstTime(new Sealed(name, key + '\0' + statement, voucher.revision(), null, voucher.proof()))) {
            reject(key, "replayed", "was vouched for with a voucher shown before, or older than "
                    + AppliedOrders.WINDOW.toSeconds() + " s; the entry is read instead");
            return false;
        }
        return true;
    }

    @Override
    public <P> CompletionStage<List<P>> query(Query<V, P> query) {
        return query(query, inner::query);
    }

    @Override
    public <P> CompletionStage<List<P>> query(Query<V, P> query, Set<String> near) {
        return query(query, sealed -> inner.query(sealed, near));
    }

    /** {@code run} asks the members; what they answer is believed as any read is. */
    private <P> CompletionStage<List<P>> query(Query<V, P> query,
            Function<SealedQuery<V>, CompletionStage<List<Object>>> run) {
        long asked = fences.mark();
        String label = SealedQuery.label(name, query);
        return trusted(run.apply(new SealedQuery<>(name, query, true)).thenApply(found -> {
            List<P> projections = new ArrayList<>(found.size());
            for (Object raw : found) {
                if (raw instanceof Sealed sealed && label.equals(sealed.map())) {
                    // read once per revision: checked, not remembered, so the memo keeps what is read again
                    P projection = believed(seal.openSigned(sealed, label, sealed.key()), sealed, sealed.key(),
                            asked);
                    if (projection != null) {
                        projections.add(projection);
                    }
                    continue;
                }
                V value = raw instanceof Sealed sealed ? open(sealed, sealed.key(), asked) : open(raw, "?", asked);
                if (value != null && query.matches(value)) {
                    projections.add(query.project(value));
                }
            }
            return projections;
        }), "(a query)");
    }

    @Override
    public CompletionStage<Void> awaitChange(String key, Duration max) {
        return inner.awaitChange(key, max);
    }

    private V open(Object raw, String key, long asked) {
        if (raw == null) {
            return null;
        }
        return believed(raw instanceof Sealed sealed ? seal.open(sealed, name, key) : null, raw, key, asked);
    }

    /**
     * {@code opened} (what {@code raw} opened to, or null) when it is neither forged nor older than a write this node
     * knows of, nor past its map's longest life; a record and a projection of it are judged alike, by the record's
     * revision.
     */
    private <T> T believed(T opened, Object raw, String key, long asked) {
        if (opened == null) {
            reject(key, "forged", "does not carry a valid seal of the cluster key; it is ignored (a member "
                    + "without the key wrote or garbled it)");
            return null;
        }
        long revision = ((Sealed) raw).revision();
        if (fences.isReplay(name, key, revision, asked) || outlived(revision)) {
            reject(key, "replayed", "is older than the latest write of the entry this node knows of; it is ignored "
                    + "(a member on the cluster network put back a copy)");
            return null;
        }
        fences.clock().follow(revision);
        return opened;
    }

    private boolean outlived(long revision) {
        return policy.longestLife() != null
                && RevisionClock.millisOf(revision) + policy.longestLife().toMillis() < System.currentTimeMillis();
    }

    private void reject(String key, String reason, String what) {
        rejections.rejected(name, reason);
        if (logged.size() < LOGGED_KEYS && logged.add(reason + '\0' + key)) {
            LOG.warn("map {}: the record under key {} {}", name, key, what);
        }
    }

    /**
     * Every write is an order the owner carries out, a plain store and a removal too: the owner gives the revision,
     * above the one it holds, so two nodes writing one key at once (a sign-in renewed through two nodes) never
     * leave the later write with the older revision, which every node would then take for a copy put back.
     */
    private record Put<V>(V value, Duration ttl) implements Update<V, Void> {

        @Override
        public Outcome<V, Void> apply(V current) {
            return Outcome.storeFor(value, ttl, null);
        }

        @Override
        public Outcome<V, Void> applyToStale(V stale) {
            return apply(stale);
        }

        /** A new key (a token, a ticket, a share) has no older copy that grants more; a rewritten one may. */
        @Override
        public boolean narrows(V before, V after) {
            return before != null;
        }
    }

    /** Removes the entry, answering what it held; a copy put back is removed and answered as nothing. */
    private record Take<V>() implements Update<V, V> {

        @Override
        public Outcome<V, V> apply(V current) {
            return Outcome.store(null, current); // garbage under the key goes too
        }

        @Override
        public Outcome<V, V> applyToStale(V stale) {
            return Outcome.store(null, null);
        }
    }

    /** Stores {@code value} if the entry is absent (or does not open); answers what was there. */
    private record PutIfAbsent<V>(V value) implements Update<V, V> {

        @Override
        public Outcome<V, V> apply(V current) {
            return current == null ? Outcome.store(value, null) : Outcome.keep(current);
        }

        @Override
        public boolean narrows(V before, V after) {
            return before != null;
        }

        /** A copy put back is no entry at all: the new value takes its place. */
        @Override
        public Outcome<V, V> applyToStale(V stale) {
            return Outcome.store(value, null);
        }
    }
}
