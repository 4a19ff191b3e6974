package org.farmgate.bench.placement;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.CostModel;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.router.placement.PlacementPolicy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The placement decision alone, against 1 to 1000 registered nodes with simulated loads (budgets, host memory,
 * reservations, a few draining or unhealthy): {@code java -cp bench/target/farmgate-bench.jar org.openjdk.jmh.Main
 * PlacementBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PlacementBenchmark {

    @Param({"1", "10", "100", "1000"})
    public int nodes;

    private List<NodeLoad> loads;
    private final SplittableRandom draws = new SplittableRandom(26);

    @Setup
    public void simulate() {
        Random random = new Random(42);
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        loads = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            ReservationBook book = ReservationBook.EMPTY;
            int sessions = random.nextInt(80);
            for (int s = 0; s < sessions; s++) {
                Protocol protocol = Protocol.values()[random.nextInt(3)];
                book = book.with(new Reservation("n" + i + "-s" + s, protocol, 10 + random.nextInt(150),
                        random.nextBoolean(), now));
            }
            HostMeasurements measurements = new HostMeasurements(16_384, 2_000 + random.nextInt(14_000), 2_000, 16,
                    random.nextInt(50) != 0, 4, random.nextDouble() * 4, now);
            NodeLoad load = new NodeLoad("node-" + i, new NodeAddress("m" + i, "10.0.0." + (i % 250), 8080),
                    new NodeLimits(12_000 + random.nextInt(4_000), 512, 500, 0), CostModel.MEASURED_GUACD_1_6,
                    measurements, book.summary(), random.nextInt(40) == 0, now);
            loads.add(load);
        }
    }

    @Benchmark
    public List<PlacementPolicy.Candidate> rankRdpSession() {
        return PlacementPolicy.rank(loads, Protocol.RDP, DisplaySize.DEFAULT);
    }

    /** Two choices ({@code GW_PLACEMENT_CHOICES=2}): the first candidate, what a placement that is taken costs. */
    @Benchmark
    public PlacementPolicy.Candidate drawTwoForRdpSession() {
        return PlacementPolicy.sample(loads, node -> true, Protocol.RDP, DisplaySize.DEFAULT, 2, draws).next();
    }

    /** The cluster's capacity view does this for every node and protocol on each refresh. */
    @Benchmark
    public int fitsMoreEverywhere() {
        int total = 0;
        for (NodeLoad load : loads) {
            total += load.fitsMore(Protocol.SSH, DisplaySize.DEFAULT);
        }
        return total;
    }

}
