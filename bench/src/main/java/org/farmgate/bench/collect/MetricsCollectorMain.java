package org.farmgate.bench.collect;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.apache.commons.csv.CSVPrinter;
import org.farmgate.bench.Csv;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * Samples the gateway's and guacd's processes to CSV while a scenario runs: {@code java -cp
 * bench/target/farmgate-bench.jar org.farmgate.bench.collect.MetricsCollectorMain [--each REGEX] [--sum REGEX]
 * [--interval-ms 1000] [--seconds 60] [--out metrics.csv]}. Processes whose command line matches {@code --each}
 * (default: the node jar) get a row each; those matching {@code --sum} (default: guacd) one row together, PSS summed
 * as guacd's real cost. CPU is the share of one core used since the previous sample.
 */
@Command(name = "metrics-collector", mixinStandardHelpOptions = true, description = "Samples processes to CSV.")
public final class MetricsCollectorMain implements Callable<Integer> {

    static final String[] HEADER = {"time_s", "label", "processes", "rss_mb", "pss_mb", "threads", "fds", "sockets",
        "cpu_pct"};

    @Spec
    private CommandSpec spec;
    @Option(names = "--each", defaultValue = "farmgate-node\\.jar", description = "a row per matching process")
    private Pattern each;
    @Option(names = "--sum", defaultValue = "(^|/)guacd( |$)", description = "one row for all matching processes")
    private Pattern sum;
    @Option(names = "--interval-ms", defaultValue = "1000", description = "time between samples, at least 100")
    private long interval;
    @Option(names = "--seconds", defaultValue = "60", description = "how long to sample, 1-86400")
    private long seconds;
    @Option(names = "--out", defaultValue = "metrics.csv", description = "the CSV to write")
    private Path out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new MetricsCollectorMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (interval < 100 || seconds < 1 || seconds > 86_400) {
            throw new ParameterException(spec.commandLine(),
                    "--interval-ms must be at least 100 and --seconds 1-86400");
        }
        Path proc = Path.of("/proc");
        double ticksPerSecond = 100; // USER_HZ on every Linux this runs on
        Map<String, Long> lastTicks = new HashMap<>();
        long begin = System.nanoTime();
        try (CSVPrinter csv = Csv.write(out, HEADER)) {
            long next = begin;
            while (System.nanoTime() - begin < seconds * 1_000_000_000L) {
                double t = (System.nanoTime() - begin) / 1e9;
                csv.printRecords(rows(proc, each, sum, t, interval / 1000.0 * ticksPerSecond, lastTicks));
                csv.flush(); // a row per sample as it comes, for a scenario that is cut short
                next += interval * 1_000_000L;
                Thread.sleep(Math.max(0, (next - System.nanoTime()) / 1_000_000));
            }
        }
        System.out.println("wrote " + out);
        return 0;
    }

    /** A row of {@link #HEADER} per group of processes. */
    static List<List<String>> rows(Path proc, Pattern each, Pattern sum, double t, double ticksPerInterval,
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
        List<List<String>> rows = new ArrayList<>();
        groups.forEach((label, samples) -> {
            long ticks = samples.stream().mapToLong(ProcessSample::cpuTicks).sum();
            Long previous = lastTicks.put(label, ticks);
            double cpu = previous == null ? 0 : Math.max(0, ticks - previous) * 100.0 / ticksPerInterval;
            rows.add(List.of(String.format(Locale.ROOT, "%.1f", t), label, String.valueOf(samples.size()),
                    megabytes(samples, ProcessSample::rssKb), megabytes(samples, ProcessSample::pssKb),
                    String.valueOf(samples.stream().mapToInt(ProcessSample::threads).sum()),
                    String.valueOf(samples.stream().mapToInt(ProcessSample::fds).sum()),
                    String.valueOf(samples.stream().mapToInt(ProcessSample::sockets).sum()),
                    String.format(Locale.ROOT, "%.1f", cpu)));
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
