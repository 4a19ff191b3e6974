package org.farmgate.router.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.SerializationService;
import com.hazelcast.nio.serialization.HazelcastSerializationException;
import com.hazelcast.spi.impl.SerializationServiceSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.farmgate.router.seal.Fences;
import org.farmgate.router.seal.Seal;
import org.farmgate.router.seal.Sealed;
import org.farmgate.router.seal.SealedMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two real members: an update decided on the entry's owner is what its backup holds (the backup never decides
 * again), sealed maps work across members, and what travels between them is in the registered stream forms.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TwoMemberMapTest {

    private static final byte[] KEY = "a-cluster-key-of-thirty-two-byte".getBytes();
    private static HazelcastInstance first;
    private static HazelcastInstance second;
    private static ExecutorService blocking;

    @BeforeAll
    static void start() {
        first = Hazelcast.newHazelcastInstance(config());
        second = Hazelcast.newHazelcastInstance(config());
        blocking = Executors.newFixedThreadPool(2);
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> first.getCluster().getMembers().size() == 2);
        first.getMap("farmgate.warm").put("partitions", "assigned"); // partitions are assigned on first use
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> first.getPartitionService().isClusterSafe());
    }

    private static Config config() {
        Config config = LoopbackMembers.config("farmgate-two-members-" + ProcessHandle.current().pid(), 5960, 2);
        // Each member lends its own seal, clock and applied orders to what runs on its entries.
        SealedMap.lend(new MemberContext(config.getUserContext()), new Seal(List.of(KEY)), new Fences());
        return config;
    }

    @AfterAll
    static void stop() {
        first.shutdown();
        if (second.getLifecycleService().isRunning()) {
            second.shutdown();
        }
        blocking.shutdown();
    }

    /** A different value on every run: run twice, on the owner and on its backup, it would differ. */
    private record Stamp() implements Update<String, String> {
        @Override
        public Outcome<String, String> apply(String current) {
            String stamp = UUID.randomUUID().toString();
            return Outcome.store(stamp, stamp);
        }
    }

    private record Note(String text) implements ReplicaNote {
        @Override
        public void reached(MemberContext replica) {
        }
    }

    private record Keep() implements Update<String, String> {
        @Override
        public Outcome<String, String> apply(String current) {
            return Outcome.keep(current);
        }
    }

    /**
     * Last: it stops the second member. Where the owner decides, a write's fence reaches no node but the entry's
     * owner and its backup; the backup, owner once the owner is lost, still refuses the copy the write replaced.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void theBackupHoldsWhatTheOwnerDecidedAndASealedMapWorksAcrossMembers() {
        SharedMap<String, String> plain = plain("farmgate.plain");
        SharedMap<String, String> sealed = sealed("farmgate.sealed", SealedMap.Policy.DEFAULT);
        String plainKey = ownedBy(second, "plain");
        String sealedKey = ownedBy(second, "sealed");
        String plainStamp = plain.update(plainKey, new Stamp()).toCompletableFuture().join();
        String sealedStamp = sealed.update(sealedKey, new Stamp()).toCompletableFuture().join();
        assertEquals(plainStamp, plain.update(plainKey, new Keep()).toCompletableFuture().join());
        assertEquals(sealedStamp, sealed.get(sealedKey).toCompletableFuture().join());

        String placesKey = ownedBy(second, "places");
        ownerDecides("farmgate.places").update(placesKey, new Stamp()).toCompletableFuture().join();
        Object before = first.getMap("farmgate.places").get(placesKey);
        ownerDecides("farmgate.places").update(placesKey, new Stamp()).toCompletableFuture().join();

        second.getLifecycleService().terminate(); // the owner dies: the first member's backups take over
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> first.getCluster().getMembers().size() == 1);
        assertEquals(plainStamp, plain.get(plainKey).toCompletableFuture().join());
        assertEquals(sealedStamp, sealed.get(sealedKey).toCompletableFuture().join());

        first.getMap("farmgate.places").set(placesKey, before); // a copy put back, on the new owner
        CompletionException refused = assertThrows(CompletionException.class,
                () -> ownerDecides("farmgate.places").update(placesKey, new Stamp()).toCompletableFuture().join());
        assertInstanceOf(SharedStateUnavailableException.class, refused.getCause(),
                "the new owner learnt the fence from the backup it kept");
    }

    /** A node that never heard of any write (its own fences empty) writing to a map whose owner decides. */
    private static SharedMap<String, String> ownerDecides(String name) {
        return sealed(name, SealedMap.Policy.DECIDED_BY_OWNER);
    }

    /** The first member's map, sealed, with fences of its own that have heard of no write. */
    private static SharedMap<String, String> sealed(String name, SealedMap.Policy policy) {
        return new SealedMap<>(name, new HazelcastSharedMap<>(first.<String, Object>getMap(name), blocking,
                new MemberContext(first.getUserContext())), new Seal(List.of(KEY)), new Fences(), policy,
                (map, reason) -> { });
    }

    /** The first member's map as it is. */
    private static SharedMap<String, String> plain(String name) {
        return new HazelcastSharedMap<>(first.getMap(name), blocking, new MemberContext(first.getUserContext()));
    }

    @Test
    void updatesAndSealedRecordsTravelInTheirStreamForms() {
        SerializationService serialization = ((SerializationServiceSupport) first).getSerializationService();
        Data update = serialization.toData(new UpdateProcessor<>(new Keep()));
        assertEquals(7101, update.getType());
        assertEquals(Keep.class, ((UpdateProcessor<?, ?, ?>) serialization.toObject(update)).update().getClass());
        Data replace = serialization.toData(UpdateProcessor.Replace.of("v", Duration.ofSeconds(3), null));
        assertEquals(7102, replace.getType(), "the form of the version before: its members read it");
        UpdateProcessor.Replace<?, ?> replaced = serialization.toObject(replace);
        assertEquals(List.of("v", Duration.ofSeconds(3)), List.of(replaced.value(), replaced.ttl()));
        assertNull(replaced.note());
        Data noted = serialization.toData(UpdateProcessor.Replace.of("v", null, new Note("n")));
        assertEquals(7103, noted.getType());
        UpdateProcessor.Replace<?, ?> notedBack = serialization.toObject(noted);
        assertEquals(List.of("v", new Note("n")), List.of(notedBack.value(), notedBack.note()));

        Sealed record = new Seal(List.of(KEY)).seal("farmgate.sealed", "k", 42, "v");
        Data data = serialization.toData(record);
        assertEquals(7001, data.getType());
        Sealed back = serialization.toObject(data);
        assertEquals(List.of("farmgate.sealed", "k"), List.of(back.map(), back.key()));
        assertEquals(42, back.revision());
        assertArrayEquals(record.payload(), back.payload());
        assertArrayEquals(record.mac(), back.mac());
        assertNull(((Sealed) serialization.toObject(serialization.toData(new Sealed("m", "k", 0, null, null)))).mac());
        Data tooLong = serialization.toData(new Sealed("m", "k", 0, new byte[1], new byte[33]));
        assertThrows(HazelcastSerializationException.class, () -> serialization.toObject(tooLong),
                "a proof longer than an HMAC-SHA256 is refused before it is read");
    }

    /** The owner seals each answer's projection with the seal it lends: Hazelcast gives the projection its context. */
    @Test
    void aSealedQueryIsProjectedOnTheMemberThatOwnsTheEntries() {
        SharedMap<String, String> sealed = sealed("farmgate.projected", SealedMap.Policy.DEFAULT);
        String remote = ownedBy(second, "remote");
        String local = ownedBy(first, "local");
        sealed.set(remote, "x".repeat(3000)).toCompletableFuture().join();
        sealed.set(local, "yy").toCompletableFuture().join();
        List<Integer> lengths = new ArrayList<>(sealed.query(new Lengths()).toCompletableFuture().join());
        lengths.sort(null);
        assertEquals(List.of(2, 3000), lengths);
    }

    /**
     * A query narrowed to some keys is asked of their partitions alone, on whichever member owns each, sealed and
     * projected as any query: an entry of another partition is not in its answer, whatever it matches.
     */
    @Test
    void aNarrowedQueryIsAskedOnlyOfTheKeysPartitions() {
        SharedMap<String, String> plain = plain("farmgate.narrowed-plain");
        SharedMap<String, String> sealed = sealed("farmgate.narrowed", SealedMap.Policy.DEFAULT);
        String remote = ownedBy(second, "remote");
        String local = ownedBy(first, "local");
        String elsewhere = ownedBy(second, "elsewhere", second.getPartitionService().getPartition(remote)
                .getPartitionId());
        for (SharedMap<String, String> map : List.of(plain, sealed)) {
            map.set(remote, "xxx").toCompletableFuture().join();
            map.set(local, "yy").toCompletableFuture().join();
            map.set(elsewhere, "z").toCompletableFuture().join();
            assertEquals(List.of(2, 3), sorted(map.query(new Lengths(), Set.of(remote, local))));
            assertEquals(List.of(3), sorted(map.query(new Lengths(), Set.of(remote))));
            assertEquals(List.of(1, 2, 3), sorted(map.query(new Lengths())));
            assertEquals(List.of(), sorted(map.query(new Lengths(), Set.of())));
        }
    }

    private static List<Integer> sorted(java.util.concurrent.CompletionStage<List<Integer>> answer) {
        List<Integer> values = new ArrayList<>(answer.toCompletableFuture().join());
        values.sort(null);
        return values;
    }

    private static String ownedBy(HazelcastInstance owner, String prefix) {
        return ownedBy(owner, prefix, -1);
    }

    private static String ownedBy(HazelcastInstance owner, String prefix, int notInPartition) {
        for (int i = 0; ; i++) {
            String key = prefix + "-" + i;
            com.hazelcast.partition.Partition partition = owner.getPartitionService().getPartition(key);
            if (partition.getOwner().localMember() && partition.getPartitionId() != notInPartition) {
                return key;
            }
        }
    }
}
