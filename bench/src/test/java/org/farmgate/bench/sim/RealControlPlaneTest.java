package org.farmgate.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.farmgate.bench.lab.NetnsLab;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The measurement of real nodes' control plane at its smallest: two nodes on hosts of their own, idle and under a
 * trickle of sessions, beside the simulation of the same. The 3/5/10-node table is the bench command's
 * (bench/RESULTS.md). Skips where network namespaces cannot be made.
 */
@WaitBound
class RealControlPlaneTest {

    @Test
    void twoRealNodesAreMeasuredBesideTheirSimulation() {
        String unavailable = NetnsLab.unavailable();
        Assumptions.assumeTrue(unavailable == null, "network namespaces are not available here: " + unavailable);
        RealControlPlane measurement = new RealControlPlane();
        int exit = new CommandLine(measurement).execute("--nodes", "2", "--warmup-seconds", "10", "--idle-seconds",
                "11", "--load-seconds", "11", "--creates-per-second", "2", "--session-seconds", "10");
        assertEquals(0, exit);
        assertEquals(2, measurement.ratios.size(), "idle and under load");
        measurement.ratios.forEach(ratio -> assertTrue(ratio > 0.5 && ratio < 2, "simulated against real: "
                + measurement.ratios));
    }
}
