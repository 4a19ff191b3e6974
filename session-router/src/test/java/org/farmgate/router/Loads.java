package org.farmgate.router;

import java.time.Instant;
import org.farmgate.model.CostModel;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.ReservationBook;

/** Simulated node loads for tests and benchmarks. */
public final class Loads {

    public static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    /** SSH 10, RDP 100, VNC 20 MB flat: easy to reason about in tables. */
    public static final CostModel FLAT = new CostModel(java.util.Map.of(
            Protocol.SSH, new CostModel.Cost(10, 0),
            Protocol.RDP, new CostModel.Cost(100, 0),
            Protocol.VNC, new CostModel.Cost(20, 0)));

    private Loads() {
    }

    public static NodeLoad node(String id, long budgetMb, long hostAvailableMb) {
        return new NodeLoad(id, new NodeAddress("member-" + id, "127.0.0.1", 8080),
                new NodeLimits(budgetMb, 0, 1000, 0), FLAT,
                new HostMeasurements(32_000, hostAvailableMb, -1, -1, true, 4, 0.5, T0),
                ReservationBook.EMPTY, false, T0);
    }
}
