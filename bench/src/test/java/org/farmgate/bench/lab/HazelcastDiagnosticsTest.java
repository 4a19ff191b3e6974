package org.farmgate.bench.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A Hazelcast 5.3 member's diagnostics log, as it writes it, read into its counts. */
class HazelcastDiagnosticsTest {

    private static List<String> metrics(long at, long out0, long out1, long priority, long bytes) {
        String prefix = "05-12-2026 12:14:17 " + at + " Metric[[";
        return List.of(prefix + "thread=hz.a.IO.thread-out-0,unit=count,metric=tcp.outputThread.framesTransceived]="
                        + out0 + "]",
                prefix + "thread=hz.a.IO.thread-out-1,unit=count,metric=tcp.outputThread.framesTransceived]=" + out1
                        + "]",
                prefix + "thread=hz.a.IO.thread-out-0,unit=count,metric=tcp.outputThread.priorityFramesTransceived]="
                        + priority + "]",
                prefix + "thread=hz.a.IO.thread-in-0,unit=count,metric=tcp.inputThread.framesTransceived]=999999]",
                prefix + "metric=tcp.bytesSend.MEMBER]=" + bytes + "]",
                prefix + "metric=tcp.bytesSend.CLIENT]=888888]");
    }

    private static List<String> operations(long at, long queries, long heartbeats) {
        return List.of("05-12-2026 12:14:17 " + at + " OperationsProfiler[",
                "                          com.hazelcast.map.impl.operation.QueryOperation[",
                "                                  count=" + String.format("%,d", queries),
                "                                  totalTime(us)=8,431",
                "                                          128..255us=1]]",
                "                          com.hazelcast.internal.cluster.impl.operations.HeartbeatOp[",
                "                                  count=" + heartbeats,
                "                                          1024..2047us=2]]]");
    }

    @Test
    void theLastCompleteDumpIsReadAndRatesAreTakenBetweenTwo() {
        List<String> first = new java.util.ArrayList<>(metrics(10_000, 5, 7, 2, 4000));
        first.addAll(operations(10_010, 1200, 30));
        first.addAll(metrics(15_000, 9, 9, 3, 6000));
        HazelcastDiagnostics.Dump earlier = HazelcastDiagnostics.parse(first);
        assertEquals(new HazelcastDiagnostics.Dump(10_000, 14, 4000, Map.of("QueryOperation", 1200L, "HeartbeatOp",
                30L)), earlier, "the dump at 15 s may still be being written: the one before is read");

        List<String> second = new java.util.ArrayList<>(first);
        second.addAll(operations(15_010, 1250, 40));
        second.addAll(metrics(20_000, 20, 20, 4, 9000));
        HazelcastDiagnostics.Dump later = HazelcastDiagnostics.parse(second);
        assertEquals(15_000, later.atMillis());
        assertEquals((21 - 14) / 5.0, later.framesPerSecond(earlier), 1e-9, "normal and priority packets written");
        assertEquals(2000 / 5.0, later.bytesPerSecond(earlier), 1e-9);
        assertEquals(Map.of("QueryOperation", 10.0, "HeartbeatOp", 2.0), later.operationsPerSecond(earlier));
    }

    @Test
    void beforeTwoDumpsThereIsNothingToRead() {
        assertNull(HazelcastDiagnostics.parse(metrics(10_000, 1, 1, 1, 1)));
        assertNull(HazelcastDiagnostics.parse(List.of()));
    }
}
