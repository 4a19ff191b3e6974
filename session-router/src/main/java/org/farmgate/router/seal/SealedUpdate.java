package org.farmgate.router.seal;

import java.io.Serializable;
import org.farmgate.router.store.Update;

/**
 * An update of a sealed entry, run on the member that owns it: opens the current record with that member's seal
 * (one that does not open counts as absent, so a valid write heals a garbled entry), applies the update, seals
 * what it stores. The cluster key never travels with it.
 */
record SealedUpdate<V extends Serializable, R>(String map, String key, Update<V, R> update)
        implements Update<Object, R> {

    @Override
    public Outcome<Object, R> apply(Object current) {
        Seal seal = Seal.installed();
        V value = current instanceof Sealed sealed ? seal.open(sealed, map, key) : null;
        Outcome<V, R> outcome = update.apply(value);
        if (!outcome.write()) {
            return Outcome.keep(outcome.result());
        }
        return Outcome.store(outcome.value() == null ? null : seal.seal(map, key, outcome.value()), outcome.result());
    }
}
