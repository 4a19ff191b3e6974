package org.farmgate.router.store;

import com.hazelcast.config.SerializerConfig;
import com.hazelcast.core.HazelcastException;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.core.MemberLeftException;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryEvictedListener;
import com.hazelcast.map.listener.EntryExpiredListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import com.hazelcast.projection.Projection;
import com.hazelcast.query.Predicate;
import com.hazelcast.query.Predicates;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.farmgate.error.Failures;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link SharedMap} on a Hazelcast {@link IMap}. Single-key operations use Hazelcast's asynchronous calls;
 * updates are entry processors, atomic on the member that owns the key (open-source Hazelcast has no CP subsystem
 * since 5.5, and needs none for this). Queries, which Hazelcast only offers blocking, run on {@code blocking}.
 */
public final class HazelcastSharedMap<K, V> implements SharedMap<K, V> {

    private static final Logger LOG = LoggerFactory.getLogger(HazelcastSharedMap.class);

    private final IMap<K, V> map;
    private final Executor blocking;
    private final MemberContext member;

    /** @param member what this member lends the queries it runs on its own partitions (its user context) */
    public HazelcastSharedMap(IMap<K, V> map, Executor blocking, MemberContext member) {
        this.map = map;
        this.blocking = blocking;
        this.member = member;
    }

    @Override
    public CompletionStage<V> get(K key) {
        return call(() -> map.getAsync(key));
    }

    @Override
    public CompletionStage<Void> set(K key, V value) {
        return call(() -> map.setAsync(key, value));
    }

    @Override
    public CompletionStage<Void> set(K key, V value, Duration ttl) {
        return call(() -> map.setAsync(key, value, ttl.toMillis(), TimeUnit.MILLISECONDS));
    }

    @Override
    public CompletionStage<V> putIfAbsent(K key, V value) {
        return call(() -> map.submitToKey(key, new PutIfAbsent<>(value)));
    }

    @Override
    public CompletionStage<V> remove(K key) {
        return call(() -> map.removeAsync(key));
    }

    @Override
    public <R> CompletionStage<R> update(K key, Update<V, R> update) {
        return call(() -> map.submitToKey(key, new UpdateProcessor<>(update)));
    }

    @Override
    public <P> CompletionStage<List<P>> query(Query<V, P> query) {
        return project(query, new Filter<>(query, member));
    }

    /**
     * Hazelcast's partition predicate: one query operation to each member owning any of the keys' partitions (5.3's
     * {@code QueryEngineImpl} groups them by owner), not to every member.
     */
    @Override
    public <P> CompletionStage<List<P>> query(Query<V, P> query, Set<K> near) {
        if (near.isEmpty()) {
            return CompletableFuture.completedFuture(new ArrayList<>());
        }
        return project(query, Predicates.multiPartitionPredicate(near, new Filter<>(query, member)));
    }

    /** Hazelcast's projection blocks: it runs on the blocking pool, never on an event loop. */
    private <P> CompletionStage<List<P>> project(Query<V, P> query, Predicate<K, V> where) {
        return unavailableOnFailure(CompletableFuture.supplyAsync(() -> new ArrayList<>(map.project(
                new Projector<>(query, member), where)), blocking));
    }

    @Override
    public CompletionStage<Void> awaitChange(K key, Duration max) {
        CompletableFuture<Void> changed = new CompletableFuture<>();
        // Registering a listener is a blocking cluster call: on the blocking threads, like queries.
        return CompletableFuture.supplyAsync(() -> map.addEntryListener(new Changed(changed), key, false), blocking)
                .thenCompose(id -> changed.completeOnTimeout(null, max.toMillis(), TimeUnit.MILLISECONDS)
                        .whenCompleteAsync((ignored, error) -> map.removeEntryListener(id), blocking));
    }

    /**
     * Hazelcast throws some failures instead of returning them (a member shutting down throws
     * HazelcastInstanceNotActiveException from the call itself): every call answers with a stage, so that a caller's
     * failure handling sees them, never its event loop.
     */
    private static <T> CompletionStage<T> call(java.util.function.Supplier<CompletionStage<T>> operation) {
        try {
            return unavailableOnFailure(operation.get());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(unavailable(e));
        }
    }

    /**
     * Hazelcast's own failures (a member leaving or gone, a timeout, a member without our classes or key answering
     * with an error) become one the edge answers 503 to: they are the cluster's state, not a fault of the request.
     */
    private static <T> CompletionStage<T> unavailableOnFailure(CompletionStage<T> stage) {
        return stage.handle((value, error) -> {
            if (error != null) {
                throw unavailable(error);
            }
            return value;
        });
    }

    private static RuntimeException unavailable(Throwable error) {
        Throwable cause = Failures.cause(error);
        if (cause instanceof HazelcastException || cause instanceof MemberLeftException) {
            LOG.debug("a cluster call failed", cause);
            return new SharedStateUnavailableException("the cluster's shared state is unavailable here for now: "
                    + cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": "
                    + firstLine(cause.getMessage())));
        }
        return cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
    }

    private static String firstLine(String message) {
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }

    /** The stream forms of what these maps send between members; every member registers them. */
    public static List<SerializerConfig> serializers() {
        return List.of(
                new SerializerConfig().setTypeClass(UpdateProcessor.class)
                        .setImplementation(new UpdateProcessor.Serializer()),
                new SerializerConfig().setTypeClass(UpdateProcessor.Replace.class)
                        .setImplementation(new UpdateProcessor.ReplaceSerializer()),
                new SerializerConfig().setTypeClass(UpdateProcessor.Noted.class)
                        .setImplementation(new UpdateProcessor.NotedSerializer()));
    }

    /** Any change of the one key it listens to. */
    private record Changed(CompletableFuture<Void> changed) implements EntryAddedListener<Object, Object>,
            EntryUpdatedListener<Object, Object>, EntryRemovedListener<Object, Object>,
            EntryExpiredListener<Object, Object>, EntryEvictedListener<Object, Object> {

        @Override
        public void entryAdded(EntryEvent<Object, Object> event) {
            changed.complete(null);
        }

        @Override
        public void entryUpdated(EntryEvent<Object, Object> event) {
            changed.complete(null);
        }

        @Override
        public void entryRemoved(EntryEvent<Object, Object> event) {
            changed.complete(null);
        }

        @Override
        public void entryExpired(EntryEvent<Object, Object> event) {
            changed.complete(null);
        }

        @Override
        public void entryEvicted(EntryEvent<Object, Object> event) {
            changed.complete(null);
        }
    }

    private record PutIfAbsent<K, V>(V value) implements EntryProcessor<K, V, V> {

        @Override
        public V process(Map.Entry<K, V> entry) {
            V current = entry.getValue();
            if (current == null) {
                entry.setValue(value);
            }
            return current;
        }
    }

    /**
     * A query's filter where the entries live: on another member it arrives serialised and Hazelcast initialises it
     * there with that member's context; on this one it runs as made, with this member's.
     */
    private static final class Filter<K, V> implements Predicate<K, V>, HazelcastInstanceAware {

        private static final long serialVersionUID = 1L;

        private final Query<V, ?> query;
        private transient MemberContext member;

        Filter(Query<V, ?> query, MemberContext member) {
            this.query = query;
            this.member = member;
        }

        @Override
        public void setHazelcastInstance(HazelcastInstance instance) {
            member = new MemberContext(instance.getUserContext());
        }

        @Override
        public boolean apply(Map.Entry<K, V> entry) {
            return query.matches(entry.getValue(), member == null ? MemberContext.NONE : member);
        }
    }

    /** A query's projection where the entries live, with that member's context as {@link Filter} has it. */
    private static final class Projector<K, V, P> implements Projection<Map.Entry<K, V>, P>,
            HazelcastInstanceAware {

        private static final long serialVersionUID = 1L;

        private final Query<V, P> query;
        private transient MemberContext member;

        Projector(Query<V, P> query, MemberContext member) {
            this.query = query;
            this.member = member;
        }

        @Override
        public void setHazelcastInstance(HazelcastInstance instance) {
            member = new MemberContext(instance.getUserContext());
        }

        @Override
        public P transform(Map.Entry<K, V> entry) {
            return query.project(entry.getValue(), member == null ? MemberContext.NONE : member);
        }
    }
}
