package org.farmgate.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.router.Loads;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.router.store.SharedMap;
import org.junit.jupiter.api.Test;

/** How registry entries follow their members: departure, late heartbeats, rejoining, and beats seen by one observer. */
class RegistryMembershipTest {

    private final NodeRegistry registry = new NodeRegistry(new LocalSharedMap<>());

    private static <T> T join(java.util.concurrent.CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private static NodeLoad beat(String member, Instant at) {
        NodeLoad base = Loads.node("a", 1000, 64_000);
        return new NodeLoad("a", new NodeAddress(member, "127.0.0.1", 8080), base.limits(), base.costModel(),
                base.measurements(), base.reservations(), false, at);
    }

    @Test
    void aLateHeartbeatOfADepartedMemberDoesNotBringItsEntryBack() {
        assertNotNull(join(registry.publish(beat("m1", Loads.T0), Set.of())));
        assertNotNull(join(registry.depart(join(registry.get("a")))));

        assertNull(join(registry.publish(beat("m1", Loads.T0.plusSeconds(1)), Set.of())), "late beat refused");
        assertNull(join(registry.get("a")));
        assertEquals(List.of(), join(registry.summaries()));
        assertEquals(NodeRegistry.ReserveResult.Outcome.NO_SUCH_NODE, join(registry.reserve("a", "s",
                Protocol.SSH, DisplaySize.DEFAULT, Loads.T0)).outcome());
        assertFalse(join(registry.setDrain("a", true)));

        // The same node, rejoined under a new member id, registers again.
        assertNotNull(join(registry.publish(beat("m2", Loads.T0.plusSeconds(2)), Set.of())));
        assertEquals("m2", join(registry.get("a")).address().memberId());
    }

    /** What the node reconciles its next beat against comes with the beat's answer, as a read would give it. */
    @Test
    void aBeatAnswersTheEntryAsWritten() {
        assertNotNull(join(registry.publish(beat("m1", Loads.T0), Set.of())));
        assertTrue(join(registry.setDrain("a", true)));
        assertEquals(NodeRegistry.ReserveResult.Outcome.NO_ROOM, join(registry.reserve("a", "s", Protocol.SSH,
                DisplaySize.DEFAULT, Loads.T0)).outcome(), "drained");
        NodeLoad written = join(registry.publish(beat("m1", Loads.T0.plusSeconds(1)), Set.of()));
        assertTrue(written.drainRequested(), "the drain flag another node set is in it");
        assertEquals(join(registry.get("a")), written);
    }

    /**
     * An owner of the version before answers true for a beat it took and knows no entry to answer with: the beat
     * reads the entry then.
     */
    @Test
    void aBeatTakenByAnOwnerOfTheVersionBeforeReadsTheEntry() {
        LocalSharedMap<String, NodeLoad> map = new LocalSharedMap<>();
        NodeRegistry before = new NodeRegistry(versionBefore(map));
        NodeLoad written = join(before.publish(beat("m1", Loads.T0), Set.of()));
        assertEquals(join(map.get("a")), written);
        assertNotNull(written);
    }

    /** {@code map}, its updates answered as the version before answers a beat: true, not the entry. */
    @SuppressWarnings("unchecked")
    private static SharedMap<String, NodeLoad> versionBefore(LocalSharedMap<String, NodeLoad> map) {
        return (SharedMap<String, NodeLoad>) Proxy.newProxyInstance(RegistryMembershipTest.class.getClassLoader(),
                new Class<?>[] {SharedMap.class}, (proxy, method, args) -> {
                    Object answer = method.invoke(map, args);
                    return method.getName().equals("update") ? ((CompletionStage<Object>) answer)
                            .thenApply(result -> result instanceof NodeLoad ? Boolean.TRUE : result) : answer;
                });
    }

    @Test
    void departureIsConditionalOnTheEntryTheCoordinatorJudged() {
        assertNotNull(join(registry.publish(beat("m1", Loads.T0), Set.of())));
        NodeLoad judged = join(registry.get("a"));
        // The node beats before the coordinator's removal lands.
        assertNotNull(join(registry.publish(beat("m1", Loads.T0.plusSeconds(1)), Set.of())));
        assertNull(join(registry.depart(judged)));
        assertNotNull(join(registry.get("a")));
        // Or it merged back under a new member id.
        assertNotNull(join(registry.publish(beat("m2", Loads.T0.plusSeconds(2)), Set.of())));
        assertNull(join(registry.depart(judged)), "judged under the old member id");
        assertEquals("m2", join(registry.get("a")).address().memberId());
    }

    @Test
    void livenessIsJudgedOnTheObserversClockFromChangesOfTheBeat() {
        Liveness liveness = new Liveness(Duration.ofSeconds(6));
        NodeLoad paused = beat("m1", Loads.T0);
        NodeLoad beating = Loads.node("b", 1000, 64_000);
        assertFalse(liveness.isFresh("a", 0), "never seen");
        liveness.observe(List.of(paused, beating), 1_000);
        assertTrue(liveness.isFresh("a", 6_999));
        for (long now = 2_000; now <= 10_000; now += 1_000) {
            // b's time stamp may be anything, even far behind the observer: only its change counts.
            beating = new NodeLoad("b", beating.address(), beating.limits(), beating.costModel(),
                    beating.measurements(), beating.reservations(), false, Instant.EPOCH.plusMillis(now));
            liveness.observe(List.of(paused, beating), now);
        }
        assertFalse(liveness.isFresh("a", 10_000), "a's beat stopped at 1 s");
        assertTrue(liveness.isFresh("b", 10_000));
        // A new member id is a beat too (the node merged back).
        liveness.observe(List.of(beat("m2", Loads.T0), beating), 11_000);
        assertTrue(liveness.isFresh("a", 11_000));
        liveness.observe(List.of(beating), 12_000);
        assertFalse(liveness.isFresh("a", 12_000), "forgotten once gone from the registry");
    }
}
