package org.farmgate.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import java.util.stream.Stream;
import org.farmgate.model.CostModel;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.router.Loads;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which heartbeats every node must hear of (a fence): those after which the node can take less than before, so
 * that an older copy put back would grant more than the entry now. A beat that changed nothing, or freed memory,
 * needs none.
 */
class HeartbeatFencesTest {

    private static final NodeLoad BEFORE = Loads.node("a", 4000, 8000);

    static Stream<Arguments> beats() {
        HostMeasurements m = BEFORE.measurements();
        NodeLimits l = BEFORE.limits();
        return Stream.of(
                Arguments.of("nothing changed", BEFORE, false),
                Arguments.of("the host freed memory", measured(m.hostAvailableMb() + 500, true), false),
                Arguments.of("the host has less memory, but the budget binds first", measured(6000, true), false),
                Arguments.of("the host has less memory than the budget", measured(3000, true), true),
                Arguments.of("guacd stopped answering", measured(m.hostAvailableMb(), false), true),
                Arguments.of("guacd answers again", measured(m.hostAvailableMb(), true), false),
                Arguments.of("a smaller budget", with(new NodeLimits(3000, 0, l.maxSessions(), 0), BEFORE.costModel(),
                        BEFORE.address()), true),
                Arguments.of("a lower session cap", with(new NodeLimits(l.budgetMb(), 0, 10, 0), BEFORE.costModel(),
                        BEFORE.address()), true),
                Arguments.of("another cost model (calibration)", with(l, CostModel.MEASURED_GUACD_1_6,
                        BEFORE.address()), true),
                Arguments.of("the node rejoined as another member", with(l, BEFORE.costModel(),
                        new NodeAddress("member-b", "127.0.0.1", 8080)), true),
                Arguments.of("a session it holds now", held(), true));
    }

    /** What the heartbeat's update stores is the entry refreshed by the node's word; it is fenced if it narrows. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("beats")
    void fencesOnlyBeatsThatTakeSomethingAway(String name, NodeLoad fresh, boolean fenced) {
        NodeLoad after = BEFORE.refreshedBy(fresh, Set.of());
        assertEquals(fenced, after.mayGrantLessThan(BEFORE), name);
        assertEquals(false, BEFORE.mayGrantLessThan(null), "a new entry: nothing was granted before");
        assertEquals(false, BEFORE.mayGrantLessThan(BEFORE.departedMember()), "after a tombstone: neither");
        assertEquals(true, BEFORE.departedMember().mayGrantLessThan(BEFORE), "a tombstone takes everything");
    }

    private static NodeLoad measured(long availableMb, boolean healthy) {
        HostMeasurements m = BEFORE.measurements();
        return new NodeLoad("a", BEFORE.address(), BEFORE.limits(), BEFORE.costModel(), new HostMeasurements(
                m.hostTotalMb(), availableMb, -1, -1, healthy, m.cpuCount(), m.loadAverage(), m.measuredAt()),
                ReservationBook.EMPTY, false, Loads.T0.plusSeconds(1));
    }

    private static NodeLoad with(NodeLimits limits, CostModel model, NodeAddress address) {
        return new NodeLoad("a", address, limits, model, BEFORE.measurements(), ReservationBook.EMPTY, false,
                Loads.T0.plusSeconds(1));
    }

    private static NodeLoad held() {
        return BEFORE.withReservations(ReservationBook.of(java.util.List.of(
                new Reservation("s1", Protocol.RDP, 100, true, Loads.T0))));
    }
}
