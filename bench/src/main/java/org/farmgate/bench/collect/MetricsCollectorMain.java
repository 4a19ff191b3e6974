package org.farmgate.bench.collect;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.farmgate.bench.Args;

/**
 * Samples the gateway's and guacd's processes to CSV while a scenario runs: {@code java -cp
 * bench/target/farmgate-bench.jar org.farmgate.bench.collect.MetricsCollectorMain [--each REGEX] [--sum REGEX]
 * [--interval-ms 1000] [--seconds 60] [--out metrics.csv]}. Processes whose command line matches {@code --each}
 * (default: the node jar) get a row each; those matching {@code --sum} (default: guacd) one row together, PSS summed
 * as guacd's real cost. CPU is the share of one core used since the previous sample.
 */
public final class MetricsCollectorMain {

    static final String HEADER = "time_s,label,processes,rss_mb,pss_mb,threads,fds,sockets,cpu_pct";

    private MetricsCollectorMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Args.parse(args);
        Pattern each = Pattern.compile(options.getOrDefault("each", "farmgate-node\\.jar"));
        Pattern sum = Pattern.compile(options.getOrDefault("sum", "(^|/)guacd( |$)"));
        long interval = Long.parseLong(options.getOrDefault("interval-ms", "1000"));
        long seconds = Long.parseLong(options.getOrDefault("seconds", "60"));
        if (interval < 100 || seconds < 1 || seconds > 86_400) {
            throw new IllegalArgumentException("--interval-ms must be at least 100 and --seconds 1-86400");
        }
        Path out = Path.of(options.getOrDefault("out", "metrics.csv"));
        Path proc = Path.of("/proc");
        double ticksPerSecond = 100; // USER_HZ on every Linux this runs on
        Map<String, Long> lastTicks = new HashMap<>();
        long begin = System.nanoTime();
        try (PrintWriter csv = new PrintWriter(Files.newBufferedWriter(out))) {
            csv.println(HEADER);
            long next = begin;
            while (System.nanoTime() - begin < seconds * 1_000_000_000L) {
                double t = (System.nanoTime() - begin) / 1e9;
                for (String row : rows(proc, each, sum, t, interval / 1000.0 * ticksPerSecond, lastTicks)) {
                    csv.println(row);
                }
                csv.flush();
                next += interval * 1_000_000L;
                Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
            }
        }
        System.out.println("wrote " + out);
    }

    static List<String> rows(Path proc, Pattern each, Pattern sum, double t, double ticksPerInterval,
            Map<String, Long> lastTicks) throws IOException {
        Map<String, List<ProcessSample>> groups = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path entry : entries) {
                ProcessSample sample = ProcessSample.read(proc, Long.parseLong(entry.getFileName().toString()));
                if (sample == null || sample.command().contains("MetricsCollectorMain")) {
                    continue;
                }
                if (each.matcher(sample.command()).find()) {
                    groups.computeIfAbsent(label(sample), k -> new ArrayList<>()).add(sample);
                } else if (sum.matcher(sample.command()).find()) {
                    groups.computeIfAbsent("guacd", k -> new ArrayList<>()).add(sample);
                }
            }
        }
        List<String> rows = new ArrayList<>();
        groups.forEach((label, samples) -> {
            long ticks = samples.stream().mapToLong(ProcessSample::cpuTicks).sum();
            Long previous = lastTicks.put(label, ticks);
            double cpu = previous == null ? 0 : Math.max(0, ticks - previous) * 100.0 / ticksPerInterval;
            rows.add(String.format(Locale.ROOT, "%.1f,%s,%d,%s,%s,%d,%d,%d,%.1f", t, label, samples.size(),
                    megabytes(samples, ProcessSample::rssKb), megabytes(samples, ProcessSample::pssKb),
                    samples.stream().mapToInt(ProcessSample::threads).sum(),
                    samples.stream().mapToInt(ProcessSample::fds).sum(),
                    samples.stream().mapToInt(ProcessSample::sockets).sum(), cpu));
        });
        return rows;
    }

    /** A node's id when its environment says it (our own processes), else its pid. */
    private static String label(ProcessSample sample) {
        try {
            String environ = Files.readString(Path.of("/proc", String.valueOf(sample.pid()), "environ"));
            for (String variable : environ.split("\0")) {
                if (variable.startsWith("GW_NODE_ID=")) {
                    return variable.substring("GW_NODE_ID=".length());
                }
            }
        } catch (IOException e) {
            // not ours to read
        }
        return "pid-" + sample.pid();
    }

    /** The group's total in MB, or -1 when /proc would not tell for one of its processes. */
    private static String megabytes(List<ProcessSample> samples,
            java.util.function.ToLongFunction<ProcessSample> field) {
        return samples.stream().mapToLong(field).anyMatch(v -> v < 0) ? "-1"
                : String.format(Locale.ROOT, "%.1f", samples.stream().mapToLong(field).sum() / 1024.0);
    }
}
