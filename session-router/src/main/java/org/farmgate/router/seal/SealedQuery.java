package org.farmgate.router.seal;

import java.io.Serializable;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Query;

/**
 * A query over sealed entries, filtered on the owning member with its seal and answered with the sealed records
 * themselves, which the asking node opens and projects again: only its own check decides what it believes.
 */
record SealedQuery<V extends Serializable>(String map, Query<V, ?> query) implements Query<Object, Object> {

    @Override
    public boolean matches(Object raw) {
        throw new IllegalStateException("a sealed query runs only where a member lends it its seal");
    }

    @Override
    public boolean matches(Object raw, MemberContext member) {
        V value = raw instanceof Sealed sealed ? Seal.lentBy(member).open(sealed, map, sealed.key()) : null;
        return value != null && query.matches(value);
    }

    @Override
    public Object project(Object sealed) {
        return sealed;
    }
}
