package org.farmgate.testkit.fault;

import java.time.Duration;

/**
 * What a link suffers, in both directions, for one run: the slow, broken and lossy links remote consoles meet.
 *
 * @param latency one-way delay added to every chunk
 * @param jitter up to this much more, drawn per chunk (order is kept, as TCP keeps it)
 * @param bytesPerSecond bandwidth cap per direction; 0 = none
 * @param stallEvery a stall starts at every multiple of this since the connection opened; zero = never
 * @param stallFor how long each stall holds every byte back
 * @param closeAfterBytes the connection is cut (RST) once this many bytes went through it, both ways; 0 = never
 * @param closeAfter the connection is cut this long after it opened; zero = never
 * @param refuse every connection is reset as soon as it is accepted
 */
public record Faults(Duration latency, Duration jitter, long bytesPerSecond, Duration stallEvery, Duration stallFor,
        long closeAfterBytes, Duration closeAfter, boolean refuse) {

    public static final Faults NONE = new Faults(Duration.ZERO, Duration.ZERO, 0, Duration.ZERO, Duration.ZERO, 0,
            Duration.ZERO, false);

    public Faults {
        if (latency.isNegative() || jitter.isNegative() || stallEvery.isNegative() || stallFor.isNegative()
                || closeAfter.isNegative() || bytesPerSecond < 0 || closeAfterBytes < 0) {
            throw new IllegalArgumentException("faults cannot be negative: " + this);
        }
        if (!stallEvery.isZero() && stallFor.compareTo(stallEvery) >= 0) {
            throw new IllegalArgumentException("a stall (" + stallFor.toMillis() + " ms) must be shorter than its period ("
                    + stallEvery.toMillis() + " ms)");
        }
    }

    public Faults withLatency(Duration value, Duration maxJitter) {
        return new Faults(value, maxJitter, bytesPerSecond, stallEvery, stallFor, closeAfterBytes, closeAfter, refuse);
    }

    public Faults withBandwidth(long value) {
        return new Faults(latency, jitter, value, stallEvery, stallFor, closeAfterBytes, closeAfter, refuse);
    }

    public Faults withStalls(Duration every, Duration length) {
        return new Faults(latency, jitter, bytesPerSecond, every, length, closeAfterBytes, closeAfter, refuse);
    }

    public Faults withCloseAfter(long bytes, Duration time) {
        return new Faults(latency, jitter, bytesPerSecond, stallEvery, stallFor, bytes, time, refuse);
    }

    public Faults withRefuse(boolean value) {
        return new Faults(latency, jitter, bytesPerSecond, stallEvery, stallFor, closeAfterBytes, closeAfter, value);
    }
}
