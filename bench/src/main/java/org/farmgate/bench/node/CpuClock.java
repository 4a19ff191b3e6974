package org.farmgate.bench.node;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time a process has used (user + system), from /proc, in milliseconds. */
public final class CpuClock {

    /** Linux reports in clock ticks; 100 per second everywhere that matters. */
    private static final long TICKS_PER_SECOND = 100;

    private CpuClock() {
    }

    public static long cpuMillis(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
        // The command name may hold spaces; fields are counted after its closing parenthesis.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        return ticks * 1000 / TICKS_PER_SECOND;
    }

    /**
     * CPU time used so far by every living process of that command name (a local PostgreSQL's {@code postgres}
     * server and backends): the part of a database on this machine that a benchmark's load costs. A process that
     * ends meanwhile takes its time with it, so this is for long-lived processes (a pool's backends).
     */
    public static long cpuMillisOf(String command) throws IOException {
        long total = 0;
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path process : processes) {
                try {
                    String stat = Files.readString(process.resolve("stat"));
                    if (stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')')).equals(command)) {
                        total += cpuMillis(Long.parseLong(process.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException gone) {
                    // the process ended between the listing and the read
                }
            }
        }
        return total;
    }

    public static long selfCpuMillis() throws IOException {
        return cpuMillis(ProcessHandle.current().pid());
    }
}
