package org.farmgate.router.store;

import java.io.Serializable;

/**
 * Which entries to read and what of each to bring back. Evaluated where the entries live, so that only the
 * projections travel.
 */
public interface Query<V, P> extends Serializable {

    boolean matches(V value);

    /** As {@link #matches(Object)}, for a query that needs what the member running it lends. */
    default boolean matches(V value, MemberContext member) {
        return matches(value);
    }

    P project(V value);

    /** As {@link #project(Object)}, for a query that needs what the member running it lends. */
    default P project(V value, MemberContext member) {
        return project(value);
    }

    /** Every entry, whole. */
    static <V> Query<V, V> all() {
        return new All<>();
    }

    /** What {@link #all()} sends to the members. */
    record All<V>() implements Query<V, V> {

        @Override
        public boolean matches(V value) {
            return true;
        }

        @Override
        public V project(V value) {
            return value;
        }
    }
}
