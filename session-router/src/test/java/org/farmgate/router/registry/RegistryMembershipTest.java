package org.farmgate.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.router.Loads;
import org.farmgate.router.store.LocalSharedMap;
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
        assertTrue(join(registry.publish(beat("m1", Loads.T0), Set.of())));
        assertNotNull(join(registry.depart(join(registry.get("a")))));

        assertFalse(join(registry.publish(beat("m1", Loads.T0.plusSeconds(1)), Set.of())), "late beat refused");
        assertNull(join(registry.get("a")));
        assertEquals(List.of(), join(registry.summaries()));
        assertEquals(NodeRegistry.ReserveResult.Outcome.NO_SUCH_NODE, join(registry.reserve("a", "s",
                Protocol.SSH, DisplaySize.DEFAULT, Loads.T0)).outcome());
        assertFalse(join(registry.setDrain("a", true)));

        // The same node, rejoined under a new member id, registers again.
        assertTrue(join(registry.publish(beat("m2", Loads.T0.plusSeconds(2)), Set.of())));
        assertEquals("m2", join(registry.get("a")).address().memberId());
    }

    @Test
    void departureIsConditionalOnTheEntryTheCoordinatorJudged() {
        assertTrue(join(registry.publish(beat("m1", Loads.T0), Set.of())));
        NodeLoad judged = join(registry.get("a"));
        // The node beats before the coordinator's removal lands.
        assertTrue(join(registry.publish(beat("m1", Loads.T0.plusSeconds(1)), Set.of())));
        assertNull(join(registry.depart(judged)));
        assertNotNull(join(registry.get("a")));
        // Or it merged back under a new member id.
        assertTrue(join(registry.publish(beat("m2", Loads.T0.plusSeconds(2)), Set.of())));
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
