package org.farmgate.bench.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;

/**
 * One shared map of the simulated cluster: the entries, held once (every owner reads the same copy, as a backup
 * that took over would), and a {@link SharedMap} per member whose calls travel through the {@link SimNetwork}. The
 * real updates and queries run on it, on the owner, at the instant the request arrives there. A sealed map's writes
 * that narrow (the update's own {@code narrows}, asked as {@code SealedUpdate} asks it) are followed by a fence from
 * the writer to every member, as {@code SealedMap}'s are, or, where the owner decides, carried in the write's backup
 * (a {@code FenceNote}); the seal's bytes are counted, its work is not.
 */
final class SimMap<V> {

    private record Entry<V>(V value, long expiresAtMicros) {
    }

    private final String name;
    private final VirtualTime time;
    private final SimNetwork network;
    private final Sizes sizes;
    private final boolean sealed;
    private final boolean synchronousBackup;
    private final Map<String, Entry<V>> entries = new HashMap<>();
    /** Each entry's last projection by a query: queries are records, equal when they ask the same. */
    private final Map<String, Map<Query<V, ?>, Object>> projections = new HashMap<>();
    private BiConsumer<String, V> afterWrite = (key, value) -> { };
    private String alwaysFenced;
    private boolean ownerDecides;

    /** @param synchronousBackup whether a write waits for its backup's acknowledgement (else it is asynchronous) */
    SimMap(String name, VirtualTime time, SimNetwork network, Sizes sizes, boolean sealed, boolean synchronousBackup) {
        this.name = name;
        this.synchronousBackup = synchronousBackup;
        this.time = time;
        this.network = network;
        this.sizes = sizes;
        this.sealed = sealed;
    }

    /** Writes of the update named so are fenced whatever they change: an earlier version of the code. */
    void fenceEvery(String updateName) {
        this.alwaysFenced = updateName;
    }

    /** Its fences stay with the owner and ride in the backup ({@code SealedMap.Policy.DECIDED_BY_OWNER}). */
    void ownerDecides() {
        this.ownerDecides = true;
    }

    /** Told of every write, on the owner, at once: where the simulation checks its invariants. */
    void afterWrite(BiConsumer<String, V> check) {
        this.afterWrite = check;
    }

    Map<String, V> snapshot() {
        Map<String, V> out = new HashMap<>();
        entries.forEach((key, entry) -> {
            V value = live(entry);
            if (value != null) {
                out.put(key, value);
            }
        });
        return out;
    }

    private V live(Entry<V> entry) {
        return entry == null || entry.expiresAtMicros() <= time.micros() ? null : entry.value();
    }

    private void write(String key, V value, Duration ttl) {
        projections.remove(key);
        if (value == null) {
            entries.remove(key);
        } else {
            entries.put(key, new Entry<>(value, ttl == null ? Long.MAX_VALUE : time.micros() + ttl.toNanos() / 1000));
        }
        afterWrite.accept(key, value);
    }

    private void backUp(int caller, String key, Object carried) {
        backUp(caller, key, carried, false);
    }

    /** A backup, with the owner's note of a fence in it when the write was fenced where the owner decides. */
    private void backUp(int caller, String key, Object carried, boolean fenced) {
        network.backUp(caller, key, name + ".backup", sizes.of(carried)
                + (fenced && ownerDecides ? Sizes.FENCE_NOTE_BYTES : 0), synchronousBackup);
    }

    private String contributor(Object operation) {
        return name + "." + operation;
    }

    SharedMap<String, V> from(int caller) {
        return new SharedMap<>() {

            @Override
            public CompletionStage<V> get(String key) {
                return network.call(caller, key, contributor("get"), key, () -> live(entries.get(key)));
            }

            @Override
            public CompletionStage<Void> set(String key, V value) {
                return set(key, value, null);
            }

            /** A sealed map's store over an entry is fenced; over none it is not ({@code SealedMap.Put}). */
            @Override
            public CompletionStage<Void> set(String key, V value, Duration ttl) {
                boolean[] fence = new boolean[1];
                return fenced(caller, fence, network.call(caller, key, contributor("set"), value, () -> {
                    fence[0] = live(entries.get(key)) != null;
                    write(key, value, ttl);
                    backUp(caller, key, value, sealed && fence[0]);
                    return null;
                }));
            }

            @Override
            public CompletionStage<V> putIfAbsent(String key, V value) {
                return network.call(caller, key, contributor("putIfAbsent"), value, () -> {
                    V current = live(entries.get(key));
                    if (current == null) {
                        write(key, value, null);
                        backUp(caller, key, value);
                    }
                    return current;
                });
            }

            /** A sealed map's removal of an entry is fenced ({@code SealedMap.Take}). */
            @Override
            public CompletionStage<V> remove(String key) {
                boolean[] fence = new boolean[1];
                return fenced(caller, fence, network.call(caller, key, contributor("remove"), key, () -> {
                    V current = live(entries.get(key));
                    fence[0] = current != null;
                    write(key, null, null);
                    backUp(caller, key, key, sealed && fence[0]);
                    return current;
                }));
            }

            @Override
            public <R> CompletionStage<R> update(String key, Update<V, R> update) {
                String what = contributor(update.getClass().getSimpleName());
                boolean[] fence = new boolean[1];
                return network.call(caller, key, what, update, () -> {
                    V before = live(entries.get(key));
                    Update.Outcome<V, R> outcome = update.apply(before, MemberContext.NONE);
                    if (outcome.write()) {
                        write(key, outcome.value(), outcome.ttl());
                        fence[0] = sealed && (before != null || outcome.value() != null)
                                && (update.narrows(before, outcome.value())
                                        || update.getClass().getSimpleName().equals(alwaysFenced));
                        backUp(caller, key, update, fence[0]); // Hazelcast's entry backup runs the processor again
                    }
                    return outcome.result();
                }).thenApply(result -> {
                    if (fence[0] && !ownerDecides) { // the writer tells every member, once answered (SealedMap)
                        network.fence(caller, name + ".fence");
                    }
                    return result;
                });
            }

            private <R> CompletionStage<R> fenced(int from, boolean[] fence, CompletionStage<R> written) {
                return written.thenApply(result -> {
                    if (sealed && fence[0] && !ownerDecides) {
                        network.fence(from, name + ".fence");
                    }
                    return result;
                });
            }

            @Override
            public <P> CompletionStage<List<P>> query(Query<V, P> query) {
                return network.query(caller, contributor(query.getClass().getSimpleName()), query,
                        bytesByMember -> evaluate(query, bytesByMember));
            }

            @Override
            public <P> CompletionStage<List<P>> query(Query<V, P> query, Set<String> near) {
                return network.queryNear(caller, contributor(query.getClass().getSimpleName()), query, near,
                        bytesByMember -> evaluate(query, bytesByMember));
            }

            @Override
            public CompletionStage<Void> awaitChange(String key, Duration max) {
                CompletableFuture<Void> woken = new CompletableFuture<>();
                time.after(max.toNanos() / 1000, () -> woken.complete(null));
                return woken;
            }
        };
    }

    @SuppressWarnings("unchecked")
    private <P> List<P> evaluate(Query<V, P> query, int[] bytesByMember) {
        List<P> out = new ArrayList<>();
        for (Map.Entry<String, Entry<V>> each : entries.entrySet()) {
            V value = live(each.getValue());
            if (value == null || !query.matches(value, MemberContext.NONE)) {
                continue;
            }
            P projection = (P) projections.computeIfAbsent(each.getKey(), k -> new HashMap<>())
                    .computeIfAbsent(query, q -> query.project(value));
            out.add(projection);
            bytesByMember[network.ownerOf(each.getKey())] += sizes.of(projection);
        }
        return out;
    }
}
