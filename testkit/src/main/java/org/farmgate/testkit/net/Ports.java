package org.farmgate.testkit.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ports for servers that must be named before they bind: a cluster's member list names every member's port before
 * the last one starts, a node process gets its port on its command line. A port the kernel hands out for port 0 is
 * free when asked and may be anyone's a moment later, since the kernel hands the same range to every socket bound to
 * port 0 and every outgoing connection of the suite's parallel tests (CI saw a member's port taken before it bound).
 * These come from below the kernel's ephemeral range (Linux's {@code ip_local_port_range}, 32768-60999 by default),
 * which neither ever gets: only another explicit binder can take one, and within this JVM the counter hands each out
 * once. The first is random, so two JVMs (a benchmark beside the suite) rarely start at the same place; a port found
 * in use is skipped.
 */
public final class Ports {

    private static final Path EPHEMERAL = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    private static final int FIRST = 20_000;
    private static final int LAST = lastBelowEphemeral();
    private static final AtomicInteger NEXT = new AtomicInteger(LAST > FIRST
            ? FIRST + ThreadLocalRandom.current().nextInt(LAST - FIRST) : 0);

    private Ports() {
    }

    /** A port no socket holds now, that no socket bound to port 0 can get (where the kernel says its range). */
    public static int free() throws IOException {
        if (LAST <= FIRST) {
            return ephemeral(); // the ephemeral range starts too low to keep out of: the kernel's choice, as before
        }
        for (int tried = 0; tried <= LAST - FIRST; tried++) {
            int port = NEXT.getAndUpdate(current -> current >= LAST ? FIRST : current + 1);
            if (available(port)) {
                return port;
            }
        }
        throw new IOException("no free port between " + FIRST + " and " + LAST);
    }

    private static boolean available(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(port)); // the wildcard: free on every address
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int ephemeral() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static int lastBelowEphemeral() {
        try {
            // by lines: a sysctl file says it is empty and answers one read only, which Files.readString spends on
            // its first byte
            String[] range = Files.readAllLines(EPHEMERAL).get(0).trim().split("\\s+");
            return Math.min(Integer.parseInt(range[0]) - 1, 32_767);
        } catch (IOException | RuntimeException e) {
            return FIRST; // not Linux, or not readable: no range known to keep out of
        }
    }
}
