package org.farmgate.bench.load;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.commons.csv.CSVPrinter;
import org.farmgate.bench.Csv;
import org.farmgate.bench.Stats;
import org.farmgate.model.Json;

/** A run's records, summarised: a table for people, a CSV row per session and a JSON summary for tools. */
public final class LoadReport {

    private static final String[] METRICS = {"create_ms", "attach_ms", "first_frame_ms", "input_ms", "ping_ms"};

    private final List<SessionRecord> records;
    private final double seconds;

    LoadReport(List<SessionRecord> records, double seconds) {
        this.records = List.copyOf(records);
        this.seconds = seconds;
    }

    public int sessions() {
        return records.size();
    }

    public long failures() {
        return records.stream().filter(r -> !r.ok).count();
    }

    /** The p-th percentile of one metric over the sessions that reached it; NaN when none did. */
    public double percentile(String metric, double p) {
        return Stats.percentile(values(metric), p);
    }

    private double[] values(String metric) {
        if (metric.equals("ping_ms") || metric.equals("input_ms")) {
            return records.stream().flatMap(r -> (metric.equals("ping_ms") ? r.pingMs : r.inputMs).stream())
                    .mapToDouble(Double::doubleValue).toArray();
        }
        Function<SessionRecord, Double> field = switch (metric) {
            case "create_ms" -> r -> r.createMs;
            case "attach_ms" -> r -> r.attachMs;
            case "first_frame_ms" -> r -> r.firstFrameMs;
            default -> throw new IllegalArgumentException("no metric " + metric);
        };
        return records.stream().mapToDouble(field::apply).filter(v -> v >= 0).toArray();
    }

    /** Failures by reason, most frequent first. */
    public Map<String, Long> failureReasons() {
        Map<String, Long> counts = records.stream().filter(r -> !r.ok)
                .collect(Collectors.groupingBy(r -> r.failure, TreeMap::new, Collectors.counting()));
        Map<String, Long> sorted = new LinkedHashMap<>();
        counts.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }

    public void print(PrintStream out) {
        long bytes = records.stream().mapToLong(r -> r.bytes).sum();
        out.printf(Locale.ROOT, "%n%d sessions in %.1f s: %d ok, %d failed; %.1f MB received (%.2f MB/s), %d syncs "
                + "answered, %d inputs sent%n", sessions(), seconds, sessions() - failures(), failures(), bytes / 1e6,
                bytes / 1e6 / seconds, records.stream().mapToLong(r -> r.syncs).sum(),
                records.stream().mapToLong(r -> r.inputs).sum());
        out.printf("%-16s %8s %10s %10s %10s %10s%n", "metric", "count", "p50", "p95", "p99", "max");
        for (String metric : METRICS) {
            out.printf(Locale.ROOT, "%-16s %8d %10.2f %10.2f %10.2f %10.2f%n", metric, values(metric).length,
                    percentile(metric, 50), percentile(metric, 95), percentile(metric, 99), percentile(metric, 100));
        }
        failureReasons().forEach((reason, count) -> out.printf("failed %d× %s%n", count, reason));
    }

    public void writeCsv(Path file) throws IOException {
        try (CSVPrinter csv = Csv.write(file, "index", "node", "session_id", "ok", "create_ms", "attach_ms",
                "first_frame_ms", "input_p50_ms", "ping_p50_ms", "bytes", "instructions", "syncs", "inputs",
                "failure")) {
            for (SessionRecord r : records) {
                csv.printRecord(r.index, r.node, r.sessionId, r.ok, ms(r.createMs), ms(r.attachMs), ms(r.firstFrameMs),
                        ms(p50(r.inputMs)), ms(p50(r.pingMs)), r.bytes, r.instructions, r.syncs, r.inputs, r.failure);
            }
        }
    }

    /** -1 when there was none, as for a step the session never reached. */
    private static double p50(List<Double> values) {
        return values.isEmpty() ? -1 : Stats.percentile(values.stream().mapToDouble(Double::doubleValue).toArray(), 50);
    }

    private static String ms(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    public void writeJson(Path file) throws IOException {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("sessions", sessions());
        summary.put("failed", failures());
        summary.put("seconds", seconds);
        summary.put("bytes", records.stream().mapToLong(r -> r.bytes).sum());
        for (String metric : METRICS) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("count", values(metric).length);
            for (int p : new int[] {50, 95, 99, 100}) {
                double v = percentile(metric, p);
                m.put(p == 100 ? "max" : "p" + p, Double.isNaN(v) ? null : v);
            }
            summary.put(metric, m);
        }
        summary.put("failures", failureReasons());
        Json.mapper().writerWithDefaultPrettyPrinter().writeValue(file.toFile(), summary);
    }
}
