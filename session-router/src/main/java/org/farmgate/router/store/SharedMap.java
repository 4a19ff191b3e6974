package org.farmgate.router.store;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * A map that every node of the cluster sees, reduced to the operations the router needs, all asynchronous so that
 * no event loop ever waits on the network. A Hazelcast map in a cluster; a local map on a node that runs alone.
 */
public interface SharedMap<K, V> {

    CompletionStage<V> get(K key);

    CompletionStage<Void> set(K key, V value);

    /** Set with a time to live: the entry disappears by itself. */
    CompletionStage<Void> set(K key, V value, Duration ttl);

    /** @return the value already there, or null when this one was stored */
    CompletionStage<V> putIfAbsent(K key, V value);

    /** @return the removed value, or null */
    CompletionStage<V> remove(K key);

    /** Applies {@code update} atomically to the entry, on the member that owns it. */
    <R> CompletionStage<R> update(K key, Update<V, R> update);

    /**
     * Whether {@code voucher} is the word of the owner of {@code key}'s entry, given lately, that it decided an update
     * saying {@code statement}: what a node believes instead of reading the entry. False where no owner vouches.
     */
    default boolean vouched(K key, String statement, Voucher voucher) {
        return false;
    }

    /** The projections of every matching entry. */
    <P> CompletionStage<List<P>> query(Query<V, P> query);

    /**
     * As {@link #query(Query)}, asked only of where the entries of {@code near} live (their partitions), so that
     * what it costs grows with {@code near}, not with the cluster. Other entries that live there are matched too:
     * the query names what it wants. A map that cannot narrow asks everywhere.
     */
    default <P> CompletionStage<List<P>> query(Query<V, P> query, Set<K> near) {
        return query(query);
    }

    /**
     * Completes at the next change of the key's entry (added, changed, removed, expired) or after {@code max},
     * whichever comes first: a wake-up after which the caller reads again, instead of polling. A change between
     * the caller's last read and this call may be missed, which {@code max} bounds.
     */
    CompletionStage<Void> awaitChange(K key, Duration max);
}
