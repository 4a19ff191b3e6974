package org.farmgate.testkit.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PortsTest {

    @Test
    void portsAreBindableDistinctAndNeverOnesTheKernelHandsOut() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        assumeTrue(Files.isReadable(range), "no Linux ephemeral range to keep out of");
        int ephemeralLow = Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0]);
        assumeTrue(ephemeralLow > 20_001, "the ephemeral range starts too low to keep out of");
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = Ports.free();
            assertTrue(port >= 20_000 && port < ephemeralLow, port + " is in the kernel's range");
            assertTrue(seen.add(port), port + " handed out twice");
        }
        // a port someone holds is skipped
        try (ServerSocket held = new ServerSocket()) {
            int next = Ports.free();
            held.bind(new InetSocketAddress(next + 1));
            int after = Ports.free();
            assertTrue(after != next + 1, "a held port was handed out");
            try (ServerSocket mine = new ServerSocket()) {
                mine.bind(new InetSocketAddress(after));
                assertEquals(after, mine.getLocalPort());
            }
        }
    }
}
