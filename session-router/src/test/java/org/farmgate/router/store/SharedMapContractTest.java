package org.farmgate.router.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Both implementations of {@link SharedMap} keep the same contract. */
class SharedMapContractTest {

    private static HazelcastInstance hazelcast;
    private static ExecutorService blocking;

    @BeforeAll
    static void start() {
        Config config = new Config().setClusterName("farmgate-contract-test");
        config.getNetworkConfig().setPort(5899).setPortAutoIncrement(true).getJoin().getAutoDetectionConfig()
                .setEnabled(false);
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        hazelcast = Hazelcast.newHazelcastInstance(config);
        blocking = Executors.newFixedThreadPool(2);
    }

    @AfterAll
    static void stop() {
        hazelcast.shutdown();
        blocking.shutdown();
    }

    static Stream<Arguments> maps() {
        return Stream.of(
                Arguments.of("local", new LocalSharedMap<String, Integer>()),
                Arguments.of("hazelcast", new HazelcastSharedMap<String, Integer>(
                        hazelcast.getMap("contract-" + System.nanoTime()), blocking, MemberContext.NONE)));
    }

    private record AddOne() implements Update<Integer, Integer> {
        @Override
        public Outcome<Integer, Integer> apply(Integer current) {
            int next = current == null ? 1 : current + 1;
            return Outcome.store(next, next);
        }
    }

    private record RemoveIfEven() implements Update<Integer, Boolean> {
        @Override
        public Outcome<Integer, Boolean> apply(Integer current) {
            return current != null && current % 2 == 0 ? Outcome.store(null, true) : Outcome.keep(false);
        }
    }

    private record Over(int floor) implements Query<Integer, String> {
        @Override
        public boolean matches(Integer value) {
            return value > floor;
        }

        @Override
        public String project(Integer value) {
            return "v" + value;
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("maps")
    void keepsTheContract(String name, SharedMap<String, Integer> map) throws Exception {
        assertNull(join(map.get("a")));
        join(map.set("a", 1));
        assertEquals(1, join(map.get("a")));
        assertEquals(1, join(map.putIfAbsent("a", 5)));
        assertNull(join(map.putIfAbsent("b", 5)));
        assertEquals(5, join(map.get("b")));
        assertEquals(2, join(map.update("a", new AddOne())));
        assertEquals(1, join(map.update("c", new AddOne())));
        assertEquals(true, join(map.update("a", new RemoveIfEven())));
        assertNull(join(map.get("a")));
        assertEquals(false, join(map.update("b", new RemoveIfEven())));
        assertEquals(List.of("v5"), join(map.query(new Over(1))));
        assertEquals(5, join(map.remove("b")));
        assertNull(join(map.remove("b")));
        join(map.set("t", 9, Duration.ofSeconds(2)));
        assertEquals(9, join(map.get("t")));
        Awaitility.await("an entry with a time to live goes by itself").atMost(Duration.ofSeconds(10))
                .until(() -> join(map.get("t")) == null);
    }

    private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }
}
