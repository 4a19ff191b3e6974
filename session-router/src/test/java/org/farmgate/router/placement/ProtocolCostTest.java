package org.farmgate.router.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.stream.Stream;
import org.farmgate.model.CostModel;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.router.Loads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What guacd takes once per protocol in use (its client library, shared by all the protocol's sessions): charged
 * with a node's first session of the protocol, held while any of them is there, free again with the last; a
 * session's reservation is its own cost only, so that the last one's release gives back exactly what it held.
 */
class ProtocolCostTest {

    /** SSH 10 MB a session and 6 once; RDP 100 and 20 once; VNC 20 flat. */
    private static final CostModel MODEL = new CostModel(Map.of(
            Protocol.SSH, new CostModel.Cost(10, 0, 6),
            Protocol.RDP, new CostModel.Cost(100, 0, 20),
            Protocol.VNC, new CostModel.Cost(20, 0)));
    private static final DisplaySize D = DisplaySize.DEFAULT;

    static Stream<Arguments> cases() {
        return Stream.of(
                // name, budget, SSH sessions held, RDP held, asked; free, charge, fits, fits more
                Arguments.of("an empty node: the first SSH session pays for SSH's library", 100, 0, 0, Protocol.SSH,
                        100, 16, true, 9),
                Arguments.of("the second pays only its own cost", 100, 1, 0, Protocol.SSH, 84, 10, true, 8),
                Arguments.of("room for a session's own cost is not room for the first", 15, 0, 0, Protocol.SSH,
                        15, 16, false, 0),
                Arguments.of("another protocol in use costs its own library", 200, 1, 0, Protocol.RDP, 184, 120, true,
                        1),
                Arguments.of("both in use", 300, 2, 1, Protocol.RDP, 300 - 20 - 100 - 6 - 20, 100, true, 1),
                Arguments.of("a protocol with nothing once: as before", 100, 0, 0, Protocol.VNC, 100, 20, true, 5));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void charges(String name, long budget, int ssh, int rdp, Protocol asked, long free, int charge, boolean fits,
            int fitsMore) {
        NodeLoad node = holding(budget, ssh, rdp);
        assertEquals(free, node.freeMb(), "free");
        assertEquals(charge, node.chargeMb(asked, D), "charge");
        assertEquals(fits, node.fits(asked, D), "fits");
        assertEquals(fitsMore, node.fitsMore(asked, D), "fits more");
    }

    @Test
    void theLastSessionsReleaseGivesBackItsProtocolsShare() {
        NodeLoad one = holding(100, 1, 0);
        assertEquals(84, one.freeMb());
        NodeLoad none = one.withReservations(one.reservations().without("ssh-0"));
        assertEquals(100, none.freeMb());
        assertEquals(0, none.protocolsInUseMb());
    }

    private static NodeLoad holding(long budget, int ssh, int rdp) {
        NodeLoad empty = Loads.node("a", budget, 32_000);
        ReservationBook book = ReservationBook.EMPTY;
        for (int i = 0; i < ssh; i++) {
            book = book.with(new Reservation("ssh-" + i, Protocol.SSH, MODEL.estimateMb(Protocol.SSH, D), true,
                    Loads.T0));
        }
        for (int i = 0; i < rdp; i++) {
            book = book.with(new Reservation("rdp-" + i, Protocol.RDP, MODEL.estimateMb(Protocol.RDP, D), true,
                    Loads.T0));
        }
        return new NodeLoad(empty.nodeId(), empty.address(), empty.limits(), MODEL, empty.measurements(), book,
                false, Loads.T0);
    }
}
