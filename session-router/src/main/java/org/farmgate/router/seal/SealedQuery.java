package org.farmgate.router.seal;

import java.io.Serializable;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Query;

/**
 * A query over sealed entries, filtered on the owning member with its seal. When the asker takes projections
 * ({@code projected}), each match is answered with its projection sealed by the owner under {@link #label}, at the
 * record's key and revision ({@link Seal#projection}); otherwise with the sealed record itself, which the asker opens
 * and projects again. Either way the asker checks every answer's seal and freshness itself: a projection is believed
 * exactly as far as the record it came from, made by a holder of the cluster key at that record's revision. A node
 * of an earlier version asks without {@code projected} (a record's missing component reads as false) and is answered
 * with records, as before; one that answers so is understood too.
 */
record SealedQuery<V extends Serializable>(String map, Query<V, ?> query, boolean projected)
        implements Query<Object, Object> {

    /** What a projection of {@code map}'s records by {@code query} is sealed as: never a map's name. */
    static String label(String map, Query<?, ?> query) {
        return map + "#" + query.getClass().getName();
    }

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

    @Override
    public Object project(Object raw, MemberContext member) {
        if (!projected || !(raw instanceof Sealed record)) {
            return raw;
        }
        Sealed projection = Seal.lentBy(member).<V>projection(record, map, label(map, query), this::projectionOf);
        return projection == null ? raw : projection;
    }

    private Serializable projectionOf(V value) {
        Object projection = query.project(value);
        if (projection instanceof Serializable serializable) {
            return serializable;
        }
        throw new IllegalStateException("a sealed query's projection must be serialisable: "
                + query.getClass().getName());
    }
}
