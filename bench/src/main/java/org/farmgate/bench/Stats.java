package org.farmgate.bench;

import java.util.Arrays;
import org.HdrHistogram.DoubleHistogram;
import org.HdrHistogram.Histogram;

/**
 * Medians and percentiles, the only statistics these noisy shared machines support honestly. Percentiles of a
 * distribution come from HdrHistogram at three significant digits: within 0.1%, far inside the run-to-run noise.
 */
public final class Stats {

    private static final int DIGITS = 3;

    private Stats() {
    }

    /**
     * The exact median of a handful of per-round figures: five or seven numbers are no distribution, and a
     * histogram's rounding would only blur the round-to-round comparison they are printed for.
     */
    public static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** The p-th percentile of non-negative samples (durations in nanoseconds, say), in any order; -1 when none. */
    public static long percentile(long[] samples, double p) {
        if (samples.length == 0) {
            return -1;
        }
        Histogram histogram = new Histogram(DIGITS);
        for (long sample : samples) {
            histogram.recordValue(sample);
        }
        return histogram.getValueAtPercentile(p);
    }

    /** The p-th percentile of non-negative samples, in any order; NaN when there are none. */
    public static double percentile(double[] samples, double p) {
        if (samples.length == 0) {
            return Double.NaN;
        }
        DoubleHistogram histogram = new DoubleHistogram(DIGITS);
        for (double sample : samples) {
            histogram.recordValue(sample);
        }
        return histogram.getValueAtPercentile(p);
    }
}
