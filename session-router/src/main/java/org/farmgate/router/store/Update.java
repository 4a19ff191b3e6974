package org.farmgate.router.store;

import java.io.Serializable;
import java.time.Duration;
import java.util.function.Function;

/**
 * An atomic change of one map entry: it sees the current value (null when absent) and says what to store (null to
 * remove) and what to answer. It runs where the entry lives, so it travels to that member: keep it small and make
 * it a named class.
 */
@FunctionalInterface
public interface Update<V, R> extends Serializable {

    Outcome<V, R> apply(V current);

    /** As {@link #apply(Object)}, for an update that needs what the member running it lends ({@link MemberContext}). */
    default Outcome<V, R> apply(V current, MemberContext member) {
        return apply(current);
    }

    /**
     * What to do when the entry is older than the latest write the caller knows of ({@code stale}, null when the
     * entry is missing): a copy put back by a member on the cluster network. Null by default: nothing is decided on
     * it and the caller is told the state is unavailable. An update that carries the whole truth of the entry (a
     * node's own registry entry) overrides this to write it anyway, which is how such an entry heals.
     */
    default Outcome<V, R> applyToStale(V stale) {
        return null;
    }

    /**
     * Whether what this update wrote ({@code after}, null: removed) may grant less than what it replaced
     * ({@code before}, null: nothing): then an old copy would grant more, and every node must hear of the write (a
     * fence on the event bus). True unless the update says otherwise, since a fence too many costs a message and
     * one too few lets a copy be put back. A map whose records grant nothing is not fenced at all (its policy).
     */
    default boolean narrows(V before, V after) {
        return true;
    }

    /**
     * The answer as the caller gets it, where the entry's owner can vouch for what it decided ({@link Voucher}):
     * {@code owner} makes a voucher for a statement, which this update puts into its answer for the caller to show
     * another node. Unchanged by default, and wherever no owner vouches (a map that is not sealed).
     */
    default R vouched(R result, Function<String, Voucher> owner) {
        return result;
    }

    /**
     * What an update decided: whether to write, the new value, how long it lives (null: until changed), the caller's
     * answer, and what the members keeping the entry's backups are told with it (null: nothing). A time to live is
     * kept by the member that owns the entry, on its clock alone.
     */
    record Outcome<V, R>(boolean write, V value, Duration ttl, R result, ReplicaNote note) {

        public static <V, R> Outcome<V, R> store(V value, R result) {
            return new Outcome<>(true, value, null, result, null);
        }

        public static <V, R> Outcome<V, R> storeFor(V value, Duration ttl, R result) {
            return new Outcome<>(true, value, ttl, result, null);
        }

        public static <V, R> Outcome<V, R> keep(R result) {
            return new Outcome<>(false, null, null, result, null);
        }

        /** This outcome, its backups carrying {@code note}. */
        public Outcome<V, R> noting(ReplicaNote note) {
            return new Outcome<>(write, value, ttl, result, note);
        }
    }
}
