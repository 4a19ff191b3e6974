package org.farmgate.bench.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ss -tinH} as iproute2 6.1 prints it, read into what each channel's sockets sent. */
class SocketCountersTest {

    private static final Map<Integer, String> CHANNELS = Map.of(5701, "hazelcast", 5702, "eventbus");

    private static String socket(String local, String peer, long bytesSent, long dataSegments) {
        return "ESTAB 0      0          " + local + " " + peer + "\n"
                + "\t cubic wscale:7,7 rto:204 rtt:0.1/0.05 mss:1448 cwnd:10 bytes_sent:" + bytesSent
                + " bytes_acked:" + bytesSent + " bytes_received:99 segs_out:" + (dataSegments + 7) + " segs_in:9 "
                + "data_segs_out:" + dataSegments + " data_segs_in:4 send 1.1Gbps lastsnd:8 lastrcv:8 lastack:8\n";
    }

    @Test
    void aSocketBelongsToTheChannelOfEitherOfItsPortsAndOthersAreLeftOut() {
        SocketCounters earlier = SocketCounters.parse(socket("10.78.0.11:5701", "10.78.0.12:40000", 1000, 10)
                + socket("10.78.0.11:45000", "10.78.0.13:5701", 500, 5)
                + socket("10.78.0.11:8080", "10.78.0.1:50000", 7777, 77), CHANNELS);
        SocketCounters later = SocketCounters.parse(socket("10.78.0.11:5701", "10.78.0.12:40000", 1600, 16)
                + socket("10.78.0.11:45000", "10.78.0.13:5701", 900, 9)
                + socket("10.78.0.11:8080", "10.78.0.1:50000", 9999, 99)
                + socket("10.78.0.11:46000", "10.78.0.12:5702", 300, 3), CHANNELS);
        Map<String, SocketCounters.Sent> sent = later.since(earlier);
        assertEquals(Map.of("hazelcast", new SocketCounters.Sent(1000, 10), "eventbus",
                new SocketCounters.Sent(300, 3)), sent, "a socket new since the first reading counts whole");
    }

    @Test
    void aSocketWithoutCountersOrAnAddressItCannotReadCountsNothing() {
        SocketCounters read = SocketCounters.parse("ESTAB 0 0 [::1]:5701 [::1]:40000\n\t cubic rto:204\n"
                + "garbage\n\n" + socket("10.78.0.11:5702", "10.78.0.12:x", 40, 1), CHANNELS);
        assertEquals(Map.of("hazelcast", new SocketCounters.Sent(0, 0), "eventbus", new SocketCounters.Sent(40, 1)),
                read.since(SocketCounters.parse("", CHANNELS)));
    }
}
