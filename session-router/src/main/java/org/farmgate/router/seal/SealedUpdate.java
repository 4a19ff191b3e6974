package org.farmgate.router.seal;

import java.io.Serializable;
import org.farmgate.router.store.Update;

/**
 * An update of a sealed entry, run on the member that owns it. The update itself arrives signed by the node that
 * sent it: the owner applies only an update that opens with its cluster key, then seals what it stores. Without the
 * signature the owner would be an oracle, sealing with the real key whatever value any member (one without the key
 * too) sent it in an update. The cluster key never travels.
 *
 * <p>A replayed signed update is still a valid one; what it can do is repeat an earlier write, which is the
 * denial of service a member on the cluster network can do anyway.
 */
record SealedUpdate<V extends Serializable, R>(String map, String key, Sealed signed) implements Update<Object, R> {

    /** The name updates are signed under: never a map's, so that a signed update never opens as a value. */
    static String updates(String map) {
        return map + "#update";
    }

    @Override
    public Outcome<Object, R> apply(Object current) {
        Seal seal = Seal.installed();
        Update<V, R> update = seal.open(signed, updates(map), key);
        if (update == null) {
            return Outcome.keep(null); // not sent by a holder of the cluster key: nothing happens
        }
        V value = current instanceof Sealed sealed ? seal.open(sealed, map, key) : null;
        Outcome<V, R> outcome = update.apply(value);
        if (!outcome.write()) {
            return Outcome.keep(outcome.result());
        }
        return Outcome.storeFor(outcome.value() == null ? null : seal.seal(map, key, outcome.value()), outcome.ttl(),
                outcome.result());
    }
}
