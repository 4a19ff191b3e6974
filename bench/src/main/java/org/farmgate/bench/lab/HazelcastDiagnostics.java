package org.farmgate.bench.lab;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a Hazelcast member says of its own traffic in its diagnostics log (Hazelcast's documented diagnostics,
 * switched on by {@link #jvmArguments}): the packets ("frames") and bytes its output threads wrote to other members,
 * and how many of each operation it ran (its operations profiler: requests from other members and its own). The
 * counts are cumulative; the latest dump of each is what {@link #latest} returns, with the instant it was taken.
 */
public final class HazelcastDiagnostics {

    /** The latest counts of one member's log. */
    public record Dump(long atMillis, long frames, long bytes, Map<String, Long> operations) {

        /** Per second since {@code earlier}. */
        public double framesPerSecond(Dump earlier) {
            return (frames - earlier.frames) * 1000.0 / Math.max(1, atMillis - earlier.atMillis);
        }

        public double bytesPerSecond(Dump earlier) {
            return (bytes - earlier.bytes) * 1000.0 / Math.max(1, atMillis - earlier.atMillis);
        }

        /** Each operation's runs per second since {@code earlier}, by its class's simple name. */
        public Map<String, Double> operationsPerSecond(Dump earlier) {
            Map<String, Double> rates = new HashMap<>();
            operations.forEach((name, count) -> {
                long delta = count - earlier.operations.getOrDefault(name, 0L);
                if (delta > 0) {
                    rates.put(name, delta * 1000.0 / Math.max(1, atMillis - earlier.atMillis));
                }
            });
            return rates;
        }
    }

    private static final Pattern HEADER = Pattern.compile("^\\S+ \\S+ (\\d+) (\\w+)\\[");
    private static final Pattern METRIC = Pattern.compile("metric=([\\w.]+)\\]=(\\d+)\\]");
    private static final Pattern OPERATION = Pattern.compile("^\\s+[\\w.]*?([\\w$]+)\\[\\s*$");
    private static final Pattern COUNT = Pattern.compile("^\\s+count=([\\d,]+)");

    private HazelcastDiagnostics() {
    }

    /** The JVM options that make a member write its diagnostics into {@code directory} every {@code seconds}. */
    public static List<String> jvmArguments(Path directory, int seconds) {
        return List.of("-Dhazelcast.diagnostics.enabled=true", "-Dhazelcast.diagnostics.directory=" + directory,
                "-Dhazelcast.diagnostics.metric.level=info",
                "-Dhazelcast.diagnostics.metrics.period.seconds=" + seconds,
                "-Dhazelcast.diagnostics.operation-profiler.period.seconds=" + seconds);
    }

    /** The latest dump in {@code directory}'s log (one member's), or null before the first one. */
    public static Dump latest(Path directory) throws IOException {
        Path log = null;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "diagnostics-*.log")) {
            for (Path file : files) {
                if (log == null || Files.getLastModifiedTime(file).compareTo(Files.getLastModifiedTime(log)) > 0) {
                    log = file;
                }
            }
        }
        return log == null ? null : parse(Files.readAllLines(log, StandardCharsets.UTF_8));
    }

    static Dump parse(List<String> lines) {
        long metricsAt = -1;
        long framesNow = 0;
        long bytesNow = 0;
        long frames = -1;
        long bytes = -1;
        long at = -1;
        Map<String, Long> operations = Map.of();
        Map<String, Long> reading = null;
        String operation = null;
        for (String line : lines) {
            Matcher header = HEADER.matcher(line);
            if (header.find()) {
                long time = Long.parseLong(header.group(1));
                if (header.group(2).equals("Metric")) {
                    if (time != metricsAt) { // a new dump: the last one is complete
                        if (metricsAt >= 0) {
                            frames = framesNow;
                            bytes = bytesNow;
                            at = metricsAt;
                        }
                        metricsAt = time;
                        framesNow = 0;
                        bytesNow = 0;
                    }
                    Matcher metric = METRIC.matcher(line);
                    if (metric.find()) {
                        String name = metric.group(1);
                        long value = Long.parseLong(metric.group(2));
                        if (line.contains("tcp.outputThread") && name.endsWith("ramesTransceived")) {
                            framesNow += value; // normal and priority frames
                        } else if (name.equals("tcp.bytesSend.MEMBER")) {
                            bytesNow += value;
                        }
                    }
                    reading = null;
                } else if (header.group(2).equals("OperationsProfiler")) {
                    reading = new HashMap<>();
                    operations = reading;
                } else {
                    reading = null;
                }
                operation = null;
                continue;
            }
            if (reading == null) {
                continue;
            }
            Matcher name = OPERATION.matcher(line);
            if (name.find()) {
                operation = name.group(1);
                continue;
            }
            Matcher count = COUNT.matcher(line);
            if (count.find() && operation != null) {
                reading.merge(operation, Long.parseLong(count.group(1).replace(",", "")), Long::sum);
                operation = null;
            }
        }
        return at < 0 ? null : new Dump(at, frames, bytes, Map.copyOf(operations));
    }
}
