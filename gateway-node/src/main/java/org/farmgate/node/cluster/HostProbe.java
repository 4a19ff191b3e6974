package org.farmgate.node.cluster;

import java.nio.file.Path;

/**
 * What the node knows of its host: memory, guacd's measured memory, CPUs and load. The node's budget and every
 * heartbeat come from here, so tests give the node a host of their own instead of the machine they run on.
 */
public interface HostProbe {

    /**
     * What one reading found; MiB, -1 where a figure is not available.
     *
     * @param guacdConnections guacd's processes that serve a connection to a console (the processes guacd forks per
     *     connection, less any still without a console)
     * @param hostId what tells this host from others (its boot id), or null when unknown
     */
    record Reading(long totalMb, long availableMb, long guacdPssMb, int guacdProcesses, int guacdConnections,
            int cpuCount, double loadAverage, String hostId) {

        public Reading(long totalMb, long availableMb, long guacdPssMb, int guacdProcesses, int cpuCount,
                double loadAverage, String hostId) {
            this(totalMb, availableMb, guacdPssMb, guacdProcesses, 0, cpuCount, loadAverage, hostId);
        }

        public Reading(long totalMb, long availableMb, long guacdPssMb, int guacdProcesses, int cpuCount,
                double loadAverage) {
            this(totalMb, availableMb, guacdPssMb, guacdProcesses, cpuCount, loadAverage, null);
        }
    }

    /** One reading. It may block on file reads: call it off the event loop. */
    Reading read();

    /** The machine the node runs on, from /proc and the cgroup files, with guacd's processes by name. */
    static HostProbe system() {
        return new ProcHostProbe(Path.of("/proc"), Path.of("/sys/fs/cgroup"), "guacd");
    }

    /**
     * {@code machine} for a node whose guacd runs in a container of its own with {@code limitMb} (a pod's sidecar):
     * the memory sessions may use is that container's, its limit less what guacd takes now, not what the node's
     * own cgroup allows. Without guacd's measure (-1: its processes cannot be read, which the node says loudly) the
     * whole limit reads as free, and the reservations alone keep the node within it.
     */
    static HostProbe inGuacdContainer(HostProbe machine, long limitMb) {
        return () -> {
            Reading reading = machine.read();
            long available = Math.max(0, limitMb - Math.max(0, reading.guacdPssMb()));
            // No host id: this memory is the container's, shared with no other node of the host.
            return new Reading(limitMb, available, reading.guacdPssMb(), reading.guacdProcesses(),
                    reading.guacdConnections(), reading.cpuCount(), reading.loadAverage(), null);
        };
    }

    /** A host that always reads the same: for tests whose outcome must not depend on the machine. */
    static HostProbe fixed(Reading reading) {
        return () -> reading;
    }
}
