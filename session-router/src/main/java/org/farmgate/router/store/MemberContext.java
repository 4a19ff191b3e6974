package org.farmgate.router.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What a member lends the updates and queries it runs on the entries it owns: what must never travel with them (the
 * seal holding the cluster key) and what is the member's own (its revision clock, the orders it applied). In a
 * cluster it is the member's Hazelcast user context, handed to an update or a query as Hazelcast initialises it on
 * the member that runs it; a local map is given one. One per member, not per JVM: several members in one process
 * (the tests) each have their own.
 */
public final class MemberContext {

    /** Lends nothing: what plain maps' updates see. */
    public static final MemberContext NONE = new MemberContext(new ConcurrentHashMap<>());

    private final ConcurrentMap<String, Object> values;

    /** A view of {@code values}, such as a Hazelcast member's user context: what is lent there later is seen too. */
    public MemberContext(ConcurrentMap<String, Object> values) {
        this.values = values;
    }

    /** Lends {@code value} under its class, in place of what was lent under it before. */
    public MemberContext lend(Object value) {
        if (this == NONE) {
            throw new IllegalStateException("NONE is every plain map's: lend to a member's own context");
        }
        values.put(value.getClass().getName(), value);
        return this;
    }

    /** What is lent under {@code type}, or null. */
    public <T> T get(Class<T> type) {
        return type.cast(values.get(type.getName()));
    }

    @Override
    public String toString() {
        return "MemberContext" + Map.copyOf(values).keySet();
    }
}
