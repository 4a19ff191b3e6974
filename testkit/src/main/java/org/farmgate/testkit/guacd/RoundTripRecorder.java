package org.farmgate.testkit.guacd;

import java.util.Arrays;

/** Round-trip samples in nanoseconds, the most recent {@code capacity} of them, safe from any thread. */
public final class RoundTripRecorder {

    private final long[] samples;
    private long count;

    public RoundTripRecorder(int capacity) {
        this.samples = new long[capacity];
    }

    public synchronized void record(long nanos) {
        samples[(int) (count++ % samples.length)] = nanos;
    }

    /** The samples since the last call, sorted; clears them. */
    public synchronized long[] drainSorted() {
        int n = (int) Math.min(count, samples.length);
        long[] out = Arrays.copyOf(samples, n);
        count = 0;
        Arrays.sort(out);
        return out;
    }
}
