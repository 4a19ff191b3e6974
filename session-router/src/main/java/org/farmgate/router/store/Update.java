package org.farmgate.router.store;

import java.io.Serializable;
import java.time.Duration;

/**
 * An atomic change of one map entry: it sees the current value (null when absent) and says what to store (null to
 * remove) and what to answer. It runs where the entry lives, so it travels to that member: keep it small and make
 * it a named class.
 */
@FunctionalInterface
public interface Update<V, R> extends Serializable {

    Outcome<V, R> apply(V current);

    /**
     * What an update decided: whether to write, the new value, how long it lives (null: until changed), and the
     * caller's answer. A time to live is kept by the member that owns the entry, on its clock alone.
     */
    record Outcome<V, R>(boolean write, V value, Duration ttl, R result) {

        public static <V, R> Outcome<V, R> store(V value, R result) {
            return new Outcome<>(true, value, null, result);
        }

        public static <V, R> Outcome<V, R> storeFor(V value, Duration ttl, R result) {
            return new Outcome<>(true, value, ttl, result);
        }

        public static <V, R> Outcome<V, R> keep(R result) {
            return new Outcome<>(false, null, null, result);
        }
    }
}
