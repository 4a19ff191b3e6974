package org.farmgate.bench.sim;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.farmgate.model.CostModel;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;

/** {@link Sizes} measured on real registry entries: one with no reservation and one with a hundred. */
final class SizesOfRealRecords {

    private SizesOfRealRecords() {
    }

    static Sizes measure() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        List<Reservation> hundred = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            hundred.add(new Reservation(java.util.UUID.nameUUIDFromBytes(new byte[] {(byte) i}).toString(),
                    Protocol.RDP, 23, true, now));
        }
        return new Sizes(entry(ReservationBook.EMPTY, now), entry(ReservationBook.of(hundred), now));
    }

    private static NodeLoad entry(ReservationBook book, Instant now) {
        return new NodeLoad("node-17", new NodeAddress("member-17", "10.0.0.17", 8080),
                new NodeLimits(3840, 256, 500, 0), CostModel.MEASURED_GUACD_1_6,
                new HostMeasurements(4096, 2000, 1500, 20, true, 8, 1.0, now), book, false, now);
    }
}
