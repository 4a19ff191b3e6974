package org.farmgate.bench.node;

import java.io.IOException;
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

    public static long selfCpuMillis() throws IOException {
        return cpuMillis(ProcessHandle.current().pid());
    }
}
