package org.farmgate.bench.collect;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One process as /proc shows it: RSS and PSS (from {@code smaps_rollup}; PSS is what a group of forked processes
 * such as guacd's really costs, RSS counts shared pages in each), threads, open descriptors, sockets, CPU ticks.
 * Values are -1 where /proc would not say (another user's process).
 */
public record ProcessSample(long pid, String command, long rssKb, long pssKb, int threads, int fds, int sockets,
        long cpuTicks) {

    private static final Pattern RSS = Pattern.compile("^VmRSS:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern THREADS = Pattern.compile("^Threads:\\s+(\\d+)", Pattern.MULTILINE);
    private static final Pattern PSS = Pattern.compile("^Pss:\\s+(\\d+)", Pattern.MULTILINE);

    /** @return the sample, or null when the process is gone */
    public static ProcessSample read(Path proc, long pid) {
        Path dir = proc.resolve(String.valueOf(pid));
        try {
            String command = new String(Files.readAllBytes(dir.resolve("cmdline")), StandardCharsets.UTF_8)
                    .replace('\0', ' ').trim();
            String status = Files.readString(dir.resolve("status"));
            String stat = Files.readString(dir.resolve("stat"));
            // Fields after the command name, which may itself hold spaces and parentheses.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
            int[] descriptors = descriptors(dir.resolve("fd"));
            return new ProcessSample(pid, command, number(RSS, status), pss(dir), (int) number(THREADS, status),
                    descriptors[0], descriptors[1], ticks);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static long pss(Path dir) {
        try {
            return number(PSS, Files.readString(dir.resolve("smaps_rollup")));
        } catch (IOException e) {
            return -1;
        }
    }

    private static int[] descriptors(Path fd) {
        int all = 0;
        int sockets = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fd)) {
            for (Path entry : entries) {
                all++;
                try {
                    if (Files.readSymbolicLink(entry).toString().startsWith("socket:")) {
                        sockets++;
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException e) {
            return new int[] {-1, -1};
        }
        return new int[] {all, sockets};
    }

    private static long number(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }
}
