package org.farmgate.model;

import java.io.Serializable;
import java.time.Instant;

/**
 * What a node measured of its host and its guacd at one moment.
 *
 * @param hostAvailableMb memory available to new processes: the kernel's MemAvailable, or less when a cgroup limit
 *     is closer
 * @param guacdPssMb proportional set size summed over every guacd process (-1 when not measurable); unlike summed
 *     RSS it counts pages guacd's forked children share only once
 * @param guacdBaselineMb guacd's PSS with no session, so that {@code guacdPssMb - guacdBaselineMb} is what sessions
 *     cost (-1 when unknown)
 * @param guacdHealthy whether guacd answered a real connection probe ({@code select} answered by {@code args})
 * @param hostId what tells the host from others (its boot id; null when unknown or when a cgroup limit gives the
 *     node memory of its own)
 * @param sharedBy how many registered nodes report this host; the total and available figures are this node's
 *     share of the host's, so that several nodes on one host never count its memory twice
 */
public record HostMeasurements(long hostTotalMb, long hostAvailableMb, long guacdPssMb, long guacdBaselineMb,
        boolean guacdHealthy, int cpuCount, double loadAverage, Instant measuredAt, String hostId, int sharedBy)
        implements Serializable {

    /** Measurements of a host no other node shares. */
    public HostMeasurements(long hostTotalMb, long hostAvailableMb, long guacdPssMb, long guacdBaselineMb,
            boolean guacdHealthy, int cpuCount, double loadAverage, Instant measuredAt) {
        this(hostTotalMb, hostAvailableMb, guacdPssMb, guacdBaselineMb, guacdHealthy, cpuCount, loadAverage,
                measuredAt, null, 1);
    }

    /** What sessions cost guacd by measurement, or -1 when unknown. */
    public long guacdSessionsPssMb() {
        return guacdPssMb < 0 || guacdBaselineMb < 0 ? -1 : Math.max(0, guacdPssMb - guacdBaselineMb);
    }
}
