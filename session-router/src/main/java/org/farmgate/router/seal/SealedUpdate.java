package org.farmgate.router.seal;

import java.io.Serializable;
import java.util.concurrent.ThreadLocalRandom;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Update;

/**
 * An update of a sealed entry, run on the member that owns it. The update itself arrives signed by the node that
 * sent it: the owner applies only an update that opens with its cluster key, then seals what it stores. Without the
 * signature the owner would be an oracle, sealing with the real key whatever value any member (one without the key
 * too) sent it in an update. The cluster key never travels.
 *
 * <p>Freshness: the signed order carries what the sender knows of the entry's latest write ({@link Fences}), and
 * the owner holds to what it knows itself: the writes it decided, and those its predecessor told it in the backups
 * it kept ({@link FenceNote}). An entry older than either is a replay put back by a member on the cluster network,
 * and the update is not decided on it (unless the update knows the whole truth itself, {@link Update#applyToStale});
 * nor is an absent entry known to have been written, where absence would grant more (a user's quota). For a map
 * whose owner decides ({@link SealedMap.Policy#ownerDecides}) that is the only place a fence goes: no other node
 * hears of the write. A signed update is applied once, and only within {@link AppliedOrders#WINDOW} of being signed,
 * so that copying an order and sending it again (an undrain, a place given back) does nothing either.
 *
 * <p>The answer is always a {@link Revised}: a member that answers anything else is not one of ours. What the update
 * asks the owner to vouch for in it ({@link Update#vouched}) is vouched for as of the entry's revision after it.
 */
record SealedUpdate<V extends Serializable, R>(String map, String key, Sealed signed) implements Update<Object, Object> {

    /** The name updates are signed under: never a map's, so that a signed update never opens as a value. */
    static String updates(String map) {
        return map + "#update";
    }

    /**
     * What the sender signs: the update, the latest write it knows of, whether absence would be stale, the map's
     * policy (how the owner fences what it writes) in its compact form, and a number drawn at random. Two nodes'
     * clocks issue the same revision in the same millisecond, so two senders of the same update to the same key (a
     * record taken by two nodes at once) would sign the same bytes, and the owner would refuse the second as a copy
     * sent again; the draw tells them apart, and a copy is still the same bytes.
     */
    record Order<V, R>(Update<V, R> update, long floor, boolean absenceIsStale, int policyFlags, long policyLifeMillis,
            long nonce) implements Serializable {

        Order(Update<V, R> update, long floor, boolean absenceIsStale, SealedMap.Policy policy) {
            this(update, floor, absenceIsStale, policy.flags(), policy.lifeMillis(),
                    ThreadLocalRandom.current().nextLong());
        }

        /** An order as a node of an earlier version signs it: no policy (0 and 0) then, and no draw. */
        Order(Update<V, R> update, long floor, boolean absenceIsStale, int policyFlags, long policyLifeMillis) {
            this(update, floor, absenceIsStale, policyFlags, policyLifeMillis, 0);
        }

        SealedMap.Policy policy() {
            return SealedMap.Policy.of(policyFlags, policyLifeMillis);
        }
    }

    @Override
    public Outcome<Object, Object> apply(Object current) {
        throw new IllegalStateException("a sealed update runs only where a member lends it its seal");
    }

    @Override
    public Outcome<Object, Object> apply(Object current, MemberContext member) {
        Seal seal = Seal.lentBy(member);
        Object opened = seal.openSigned(signed, updates(map), key);
        if (!(opened instanceof Order<?, ?> received)) {
            return Outcome.keep(null); // not sent by a holder of the cluster key: nothing happens
        }
        @SuppressWarnings("unchecked")
        Order<V, R> order = (Order<V, R>) received;
        if (!member.get(AppliedOrders.class).firstTime(signed)) {
            return Outcome.keep(Revised.refused("the update was signed more than " + AppliedOrders.WINDOW.toSeconds()
                    + " s ago or was applied already (a copy sent again)"));
        }
        // A node of the version before signs no policy, read as the default: its fences go to every node, as they did.
        SealedMap.Policy policy = order.policy();
        Fences kept = member.get(Fences.class);
        Fences.Fence last = kept == null ? null : kept.of(map, key);
        long floor = Math.max(order.floor(), last == null ? 0 : last.revision());
        Sealed stored = current instanceof Sealed sealed ? sealed : null;
        V value = stored == null ? null : seal.open(stored, map, key);
        long revision = value == null ? 0 : stored.revision();
        boolean stale = value != null ? revision < floor
                : order.absenceIsStale() || policy.absenceGrants() && last != null && last.present();
        Outcome<V, R> outcome = stale ? order.update().applyToStale(value) : order.update().apply(value);
        if (outcome == null) {
            return Outcome.keep(Revised.refused("the entry is older than the latest write the sender or its owner "
                    + "knows of (a copy put back by a member on the cluster network)"));
        }
        if (!outcome.write()) {
            return Outcome.keep(new Revised<>(vouched(order, outcome.result(), seal, revision), 0, false, false, null));
        }
        long next = member.get(RevisionClock.class).next(Math.max(revision, floor));
        Sealed sealed = outcome.value() == null ? null : seal.seal(map, key, next, outcome.value());
        // A write over a copy put back is always told: it is the truth the nodes must now hold to.
        boolean fenced = stale || (value != null || outcome.value() != null)
                && order.update().narrows(value, outcome.value());
        Outcome<Object, Object> written = Outcome.storeFor(sealed, outcome.ttl(), new Revised<>(vouched(order,
                outcome.result(), seal, next), next, sealed != null, fenced, null));
        if (!fenced || !policy.grantsAccess() || kept == null) {
            return written;
        }
        Fences.Fence fence = policy.fence(map, key, next, sealed != null);
        kept.learn(fence);
        return policy.ownerDecides() ? written.noting(FenceNote.of(seal, fence)) : written;
    }

    /** The update's answer with what this owner vouches for in it, as of the entry's {@code revision}. */
    private <A> A vouched(Order<V, A> order, A result, Seal seal, long revision) {
        return order.update().vouched(result, statement -> seal.vouch(map, key, statement, revision));
    }
}
