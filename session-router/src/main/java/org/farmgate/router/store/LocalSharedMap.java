package org.farmgate.router.store;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link SharedMap} for a node that runs alone: a concurrent map, every operation complete at once. */
public final class LocalSharedMap<K, V> implements SharedMap<K, V> {

    /** A value and the instant it expires (Long.MAX_VALUE: never). */
    private record Entry<V>(V value, long expiresAtMillis) {
    }

    private static final long SWEEP_EVERY_MILLIS = 10_000;

    private final ConcurrentHashMap<K, Entry<V>> entries = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<K, List<CompletableFuture<Void>>> waiters = new ConcurrentHashMap<>();
    private final Clock clock;
    private final MemberContext member;
    private volatile long lastSweep;

    /** @param member what this map's updates and queries are lent, as a member lends them its own */
    public LocalSharedMap(Clock clock, MemberContext member) {
        this.clock = clock;
        this.member = member;
    }

    public LocalSharedMap(Clock clock) {
        this(clock, MemberContext.NONE);
    }

    public LocalSharedMap() {
        this(Clock.systemUTC());
    }

    @Override
    public CompletionStage<V> get(K key) {
        return CompletableFuture.completedFuture(live(entries.get(key)));
    }

    @Override
    public CompletionStage<Void> set(K key, V value) {
        entries.put(key, new Entry<>(value, Long.MAX_VALUE));
        wake(key);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> set(K key, V value, Duration ttl) {
        entries.put(key, new Entry<>(value, clock.millis() + ttl.toMillis()));
        sweepNowAndThen();
        wake(key);
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<V> putIfAbsent(K key, V value) {
        Object[] previous = new Object[1];
        entries.compute(key, (k, current) -> {
            V live = live(current);
            previous[0] = live;
            return live != null ? current : new Entry<>(value, Long.MAX_VALUE);
        });
        wake(key);
        return CompletableFuture.completedFuture(cast(previous[0]));
    }

    @Override
    public CompletionStage<V> remove(K key) {
        V removed = live(entries.remove(key));
        wake(key);
        return CompletableFuture.completedFuture(removed);
    }

    @Override
    public <R> CompletionStage<R> update(K key, Update<V, R> update) {
        Object[] result = new Object[1];
        entries.compute(key, (k, current) -> {
            Update.Outcome<V, R> outcome = update.apply(live(current), member);
            result[0] = outcome.result();
            if (!outcome.write()) {
                return current;
            }
            return outcome.value() == null ? null : new Entry<>(outcome.value(),
                    outcome.ttl() == null ? Long.MAX_VALUE : clock.millis() + outcome.ttl().toMillis());
        });
        // Entries an update gave a time to live (a directory's tombstones) go too, not only those set with one.
        sweepNowAndThen();
        wake(key);
        return CompletableFuture.completedFuture(cast(result[0]));
    }

    @Override
    public <P> CompletionStage<List<P>> query(Query<V, P> query) {
        List<P> out = new ArrayList<>();
        for (Entry<V> entry : entries.values()) {
            V value = live(entry);
            if (value != null && query.matches(value, member)) {
                out.add(query.project(value, member));
            }
        }
        return CompletableFuture.completedFuture(out);
    }

    /** Expiry is not announced here: a waiter on an entry that expires wakes at {@code max}. */
    @Override
    public CompletionStage<Void> awaitChange(K key, Duration max) {
        CompletableFuture<Void> changed = new CompletableFuture<>();
        waiters.computeIfAbsent(key, k -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(changed);
        return changed.completeOnTimeout(null, max.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .whenComplete((ignored, error) -> waiters.computeIfPresent(key, (k, list) -> {
                    list.remove(changed);
                    return list.isEmpty() ? null : list;
                }));
    }

    private void wake(K key) {
        List<CompletableFuture<Void>> waiting = waiters.get(key);
        if (waiting != null) {
            waiting.forEach(changed -> changed.complete(null));
        }
    }

    public int size() {
        return entries.size();
    }

    private V live(Entry<V> entry) {
        return entry == null || entry.expiresAtMillis() <= clock.millis() ? null : entry.value();
    }

    /** Expired entries go on the next write with a time to live, at most every ten seconds: memory stays bounded. */
    /** Entries held, expired ones not yet swept included: what this map costs in memory. */
    int held() {
        return entries.size();
    }

    private void sweepNowAndThen() {
        long now = clock.millis();
        if (now - lastSweep >= SWEEP_EVERY_MILLIS) {
            lastSweep = now;
            entries.values().removeIf(entry -> entry.expiresAtMillis() <= now);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object value) {
        return (T) value;
    }
}
