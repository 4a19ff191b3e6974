package org.farmgate.router.seal;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.farmgate.router.store.HazelcastSharedMap;
import org.farmgate.router.store.LoopbackMembers;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.SharedStateUnavailableException;
import org.farmgate.router.store.Update;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A member that joins takes partitions over with entries whose fences, where the owner decides, only their old owner
 * and backup knew: the old owner hands them over, and the new owner refuses the copies they stop.
 */
class FenceHandoffTest {

    private static final byte[] KEY = "a-cluster-key-of-thirty-two-byte".getBytes();
    private static final String MAP = "farmgate.places";
    private final String cluster = "farmgate-handoff-" + UUID.randomUUID();
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final ExecutorService blocking = Executors.newFixedThreadPool(2);

    @AfterEach
    void stop() {
        members.forEach(member -> member.getLifecycleService().terminate());
        blocking.shutdown();
    }

    private HazelcastInstance start(Fences knows, boolean handsOff) {
        Config config = LoopbackMembers.config(cluster, 5980, 3);
        config.setProperty("hazelcast.partition.count", "31");
        Seal seal = new Seal(List.of(KEY));
        SealedMap.lend(new MemberContext(config.getUserContext()), seal, knows);
        if (handsOff) {
            config.addListenerConfig(new ListenerConfig(new FenceHandoff(seal, knows)));
        }
        HazelcastInstance member = Hazelcast.newHazelcastInstance(config);
        members.add(member);
        return member;
    }

    @Test
    void theMemberThatTakesAPartitionOverRefusesTheCopiesItsFencesStop() {
        assertTrue(joinerRefusesEveryCopy(true));
    }

    /** The same without the handoff: the joiner decides on the copies, which is what the handoff is for. */
    @Test
    void withoutTheHandoffTheJoinerWouldDecideOnThem() {
        assertTrue(!joinerRefusesEveryCopy(false));
    }

    private boolean joinerRefusesEveryCopy(boolean handsOff) {
        HazelcastInstance first = start(new Fences(), handsOff);
        start(new Fences(), handsOff);
        Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> first.getCluster().getMembers().size() == 2);
        Map<String, Object> copies = new HashMap<>();
        for (int i = 0; i < 60; i++) {
            String key = "user-" + i;
            writer(first).update(key, new Stamp()).toCompletableFuture().join();
            copies.put(key, first.getMap(MAP).get(key));
            writer(first).update(key, new Stamp()).toCompletableFuture().join();
        }
        Fences joinerKnows = new Fences();
        HazelcastInstance joiner = start(joinerKnows, handsOff);
        Awaitility.await().atMost(60, TimeUnit.SECONDS).until(() -> first.getCluster().getMembers().size() == 3
                && first.getPartitionService().isClusterSafe());
        List<String> taken = copies.keySet().stream()
                .filter(key -> joiner.getPartitionService().getPartition(key).getOwner().localMember()).toList();
        assertTrue(!taken.isEmpty(), "the joiner owns some of the keys");
        if (handsOff) {
            Awaitility.await().atMost(30, TimeUnit.SECONDS).until(() -> taken.stream()
                    .allMatch(key -> joinerKnows.of(MAP, key) != null));
        }
        int refused = 0;
        for (String key : taken) {
            first.getMap(MAP).set(key, copies.get(key)); // a copy put back, on the joiner
            try {
                writer(first).update(key, new Stamp()).toCompletableFuture().join();
            } catch (CompletionException e) {
                assertInstanceOf(SharedStateUnavailableException.class, e.getCause());
                refused++;
            }
        }
        return refused == taken.size();
    }

    /** A node that never heard of any write: only the owner's own knowledge can stop a copy. */
    private SharedMap<String, String> writer(HazelcastInstance via) {
        return new SealedMap<>(MAP, new HazelcastSharedMap<>(via.<String, Object>getMap(MAP), blocking,
                new MemberContext(via.getUserContext())), new Seal(List.of(KEY)), new Fences(),
                SealedMap.Policy.DECIDED_BY_OWNER, (map, reason) -> { });
    }

    private record Stamp() implements Update<String, String> {
        @Override
        public Outcome<String, String> apply(String current) {
            String stamp = UUID.randomUUID().toString();
            return Outcome.store(stamp, stamp);
        }
    }
}
