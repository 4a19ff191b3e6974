package org.farmgate.router.seal;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shared map whose every value is sealed with the cluster key and checked on every read: a record that does not
 * open (forged, garbled, moved from another key or map) is treated as absent, counted, and logged once per key. A
 * member without the key can still delete or garble entries (only network isolation stops that) but can make no
 * record that grants access, routes a relay or places a session.
 *
 * <p>Updates and queries run on the member that owns the entry, with that member's installed {@link Seal}. An
 * update travels signed, and an owner applies only an update that opens, so no member can have its own values
 * sealed by an owner that holds the key; query results come back sealed and are opened again here, so a member
 * that owns a partition cannot answer with records of its own making either.
 */
public final class SealedMap<V extends Serializable> implements SharedMap<String, V> {

    private static final Logger LOG = LoggerFactory.getLogger(SealedMap.class);
    private static final int LOGGED_KEYS = 1024;

    /** Told of every record that did not open. */
    @FunctionalInterface
    public interface RejectionCounter {
        void rejected(String map);
    }

    private final String name;
    private final SharedMap<String, Object> inner;
    private final Seal seal;
    private final RejectionCounter rejections;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    /** @param inner the map as it lies in the cluster: sealed records, or anything a stranger put there */
    public SealedMap(String name, SharedMap<String, Object> inner, Seal seal, RejectionCounter rejections) {
        this.name = name;
        this.inner = inner;
        this.seal = seal;
        this.rejections = rejections;
    }

    @Override
    public CompletionStage<V> get(String key) {
        return inner.get(key).thenApply(sealed -> open(sealed, key));
    }

    @Override
    public CompletionStage<Void> set(String key, V value) {
        return inner.set(key, seal.seal(name, key, value));
    }

    @Override
    public CompletionStage<Void> set(String key, V value, Duration ttl) {
        return inner.set(key, seal.seal(name, key, value), ttl);
    }

    @Override
    public CompletionStage<V> putIfAbsent(String key, V value) {
        return update(key, new PutIfAbsent<>(value));
    }

    @Override
    public CompletionStage<V> remove(String key) {
        return inner.remove(key).thenApply(sealed -> open(sealed, key));
    }

    @Override
    public <R> CompletionStage<R> update(String key, Update<V, R> update) {
        return inner.update(key, new SealedUpdate<V, R>(name, key, seal.seal(SealedUpdate.updates(name), key, update)));
    }

    @Override
    public <P> CompletionStage<List<P>> query(Query<V, P> query) {
        return inner.query(new SealedQuery<>(name, query)).thenApply(found -> {
            List<P> projections = new ArrayList<>(found.size());
            for (Object raw : found) {
                V value = raw instanceof Sealed sealed ? open(sealed, sealed.key()) : open(raw, "?");
                if (value != null && query.matches(value)) {
                    projections.add(query.project(value));
                }
            }
            return projections;
        });
    }

    @Override
    public CompletionStage<Void> awaitChange(String key, Duration max) {
        return inner.awaitChange(key, max);
    }

    private V open(Object raw, String key) {
        if (raw == null) {
            return null;
        }
        V value = raw instanceof Sealed sealed ? seal.open(sealed, name, key) : null;
        if (value == null) {
            rejections.rejected(name);
            if (logged.size() < LOGGED_KEYS && logged.add(key)) {
                LOG.warn("map {}: the record under key {} does not carry a valid seal of the cluster key; it is "
                        + "ignored (a member without the key wrote or garbled it)", name, key);
            }
        }
        return value;
    }

    /** Stores {@code value} if the entry is absent (or does not open); answers what was there. */
    private record PutIfAbsent<V>(V value) implements Update<V, V> {

        @Override
        public Outcome<V, V> apply(V current) {
            return current == null ? Outcome.store(value, null) : Outcome.keep(current);
        }
    }
}
