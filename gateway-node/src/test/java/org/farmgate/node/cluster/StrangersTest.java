package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.farmgate.model.CostModel;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.ReservationBook;
import org.farmgate.router.store.Membership;
import org.farmgate.testkit.time.MutableClock;
import org.junit.jupiter.api.Test;

/** Who counts as a stranger, when, and that only the coordinator expels, once per member. */
class StrangersTest {

    private final Map<String, String> members = new LinkedHashMap<>();
    private final List<String> expelled = new ArrayList<>();
    private boolean coordinator = true;
    private final MutableClock clock = new MutableClock();

    private final Membership membership = new Membership() {
        @Override
        public String localMemberId() {
            return "self";
        }

        @Override
        public Set<String> memberIds() {
            return members.keySet();
        }

        @Override
        public Map<String, String> addresses() {
            return members;
        }

        @Override
        public boolean expel(String memberId, String reason) {
            if (coordinator) {
                expelled.add(memberId);
            }
            return coordinator;
        }

        @Override
        public boolean isCoordinator() {
            return coordinator;
        }

        @Override
        public void onMemberRemoved(Consumer<String> listener) {
        }
    };

    private Strangers strangers(boolean expel) {
        return new Strangers(membership, Duration.ofSeconds(10), expel, clock);
    }

    /** While a member is unproven every heartbeat reads every entry; once all are proven, a sample will do. */
    @Test
    void anUnprovenMemberIsReportedUntilItsEntryIsSeen() {
        members.put("self", "10.0.0.1:5701");
        Strangers strangers = strangers(true);
        assertTrue(!strangers.anyUnproven(), "alone");
        members.put("node-b", "10.0.0.2:5701");
        assertTrue(strangers.anyUnproven(), "joined, no entry seen yet");
        strangers.proven(List.of(node("node-b")));
        assertTrue(!strangers.anyUnproven());
    }

    @Test
    void aMemberWithoutASealedEntryIsAStrangerOnceItsGraceIsOver() {
        members.put("self", "10.0.0.1:5701");
        members.put("node-b", "10.0.0.2:5701");
        members.put("mallory", "10.0.0.66:5701");
        Strangers strangers = strangers(false);
        strangers.proven(List.of(node("node-b")));
        assertEquals(List.of(), strangers.check(), "within the grace");
        clock.advance(Duration.ofSeconds(10));
        List<Strangers.Stranger> found = strangers.check();
        assertEquals(1, found.size());
        assertEquals("mallory", found.get(0).memberId());
        assertEquals("10.0.0.66:5701", found.get(0).address());
        assertEquals(List.of(), expelled, "expulsion is off");
        strangers.proven(List.of(node("mallory"))); // a slow node that registered at last
        assertEquals(List.of(), strangers.check());
    }

    @Test
    void onlyTheCoordinatorExpelsAndOnceAMember() {
        members.put("self", "10.0.0.1:5701");
        members.put("mallory", "10.0.0.66:5701");
        coordinator = false;
        Strangers strangers = strangers(true);
        strangers.check();
        clock.advance(Duration.ofSeconds(11));
        assertEquals(1, strangers.check().size());
        assertEquals(List.of(), expelled);
        coordinator = true; // the old coordinator left: this node takes over
        strangers.check();
        strangers.check();
        assertEquals(List.of("mallory"), expelled);
        assertEquals(1, strangers.expulsions());
        assertEquals("mallory", strangers.expelled().get(0).memberId());
        assertTrue(strangers.expelled().get(0).expelledAt() != null);
        members.remove("mallory");
        assertEquals(List.of(), strangers.check(), "gone");
        members.put("mallory-again", "10.0.0.66:5701"); // rejoined under a new member id: a new grace
        assertEquals(List.of(), strangers.check());
    }

    private static NodeLoad node(String memberId) {
        return new NodeLoad(memberId, new NodeAddress(memberId, "127.0.0.1", 1, 1), new NodeLimits(1000, 0, 10, 0),
                CostModel.MEASURED_GUACD_1_6, new HostMeasurements(32_000, 16_000, -1, -1, true, 4, 0.5, Instant.EPOCH),
                ReservationBook.EMPTY, false, Instant.EPOCH);
    }
}
