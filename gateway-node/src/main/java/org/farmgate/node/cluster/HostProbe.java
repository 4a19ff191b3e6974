package org.farmgate.node.cluster;

import java.nio.file.Path;

/**
 * What the node knows of its host: memory, guacd's measured memory, CPUs and load. The node's budget and every
 * heartbeat come from here, so tests give the node a host of their own instead of the machine they run on.
 */
public interface HostProbe {

    /** What one reading found; MiB, -1 where a figure is not available. */
    /** @param hostId what tells this host from others (its boot id), or null when unknown */
    record Reading(long totalMb, long availableMb, long guacdPssMb, int guacdProcesses, int cpuCount,
            double loadAverage, String hostId) {

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

    /** A host that always reads the same: for tests whose outcome must not depend on the machine. */
    static HostProbe fixed(Reading reading) {
        return () -> reading;
    }
}
