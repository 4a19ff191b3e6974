package org.farmgate.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLoad;
import org.farmgate.router.Loads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A node seen again after a while, with a beat the observer has not seen: fresh or stale by when the writer's own
 * clock says that beat came after the one seen before, never by comparing the two hosts' clocks.
 */
class LivenessTest {

    private static final Duration STALE_AFTER = Duration.ofSeconds(6);
    /** The writer's clock, far from the observer's: only its differences may count. */
    private static final long WRITER_EPOCH = 1_700_000_000_000L;

    /**
     * Each case: the earlier beat (writer's ms since its epoch) and when the observer saw it (its own ms), the later
     * beat and when the observer saw that, whether the member is the same, and whether the node is fresh then.
     */
    static Stream<Arguments> sightings() {
        return Stream.of(
                Arguments.of("every beat read", 0, 1_000, 1_500, 2_500, true, true),
                Arguments.of("drawn late, beating on", 0, 1_000, 18_500, 20_000, true, true),
                Arguments.of("drawn late, dead since its beat at 3 s", 0, 1_000, 3_000, 20_000, true, false),
                Arguments.of("dead 5 s after, within staleAfter", 0, 1_000, 5_000, 11_999, true, true),
                Arguments.of("dead 5 s after, staleAfter passed", 0, 1_000, 5_000, 12_000, true, false),
                Arguments.of("the writer's clock stepped back", 10_000, 1_000, 2_000, 20_000, true, true),
                Arguments.of("restarted as another member", 0, 1_000, 3_000, 20_000, false, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sightings")
    void aBeatSeenAgainIsDatedByTheWritersOwnClock(String name, long firstBeat, long firstSeen, long laterBeat,
            long laterSeen, boolean sameMember, boolean fresh) {
        Liveness liveness = new Liveness(STALE_AFTER);
        liveness.observeSome(List.of(beat("member-1", firstBeat)), firstSeen);
        liveness.observeSome(List.of(beat(sameMember ? "member-1" : "member-2", laterBeat)), laterSeen);
        assertEquals(fresh, liveness.isFresh("a", laterSeen), name);
    }

    @Test
    void aNodeSeenOnceIsFreshForStaleAfter() {
        Liveness liveness = new Liveness(STALE_AFTER);
        liveness.observeSome(List.of(beat("member-1", 3_000)), 20_000);
        assertTrue(liveness.isFresh("a", 20_000 + STALE_AFTER.toMillis() - 1));
        assertFalse(liveness.isFresh("a", 20_000 + STALE_AFTER.toMillis()));
        assertFalse(liveness.isFresh("b", 20_000), "never seen");
    }

    private static NodeLoad beat(String member, long writerMillis) {
        NodeLoad node = Loads.node("a", 1000, 64_000);
        return new NodeLoad("a", new NodeAddress(member, "127.0.0.1", 8080), node.limits(), node.costModel(),
                node.measurements(), node.reservations(), false, Instant.ofEpochMilli(WRITER_EPOCH + writerMillis));
    }
}
