package org.farmgate.node.cluster;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the host's memory and guacd's from /proc and the cgroup files. Blocking file reads: call it off the event
 * loop. Everything in MiB; -1 where the figure is not available (not Linux, no permission).
 */
public final class ProcHostProbe implements HostProbe {

    private static final Pattern MEMINFO = Pattern.compile("^(\\w+):\\s+(\\d+) kB", Pattern.MULTILINE);
    private static final Pattern PSS = Pattern.compile("^Pss:\\s+(\\d+) kB", Pattern.MULTILINE);

    private final Path proc;
    private final Path cgroup;
    private final String guacdName;

    public ProcHostProbe(Path proc, Path cgroup, String guacdName) {
        this.proc = proc;
        this.cgroup = cgroup;
        this.guacdName = guacdName;
    }

    @Override
    public Reading read() {
        long[] memory = memory();
        long[] guacd = guacdPss();
        return new Reading(memory[0], memory[1], guacd[0], (int) guacd[1],
                Runtime.getRuntime().availableProcessors(),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), memory[2] == 1 ? null : hostId());
    }

    /**
     * The kernel's boot id: the same for every process on one host (containers included), another on every other
     * host, and new at each boot. Nodes that report the same one share the host's memory.
     */
    private String hostId() {
        try {
            return Files.readString(proc.resolve("sys/kernel/random/boot_id")).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Total and available memory: the kernel's MemTotal and MemAvailable, narrowed by a cgroup limit when one is
     * closer (a container sees the host's /proc/meminfo, but may only use its limit), and 1 when it did: the
     * node then has memory of its own, not shared with the host's other nodes.
     */
    long[] memory() {
        long total = -1;
        long available = -1;
        try {
            String meminfo = Files.readString(proc.resolve("meminfo"));
            Matcher m = MEMINFO.matcher(meminfo);
            while (m.find()) {
                if (m.group(1).equals("MemTotal")) {
                    total = Long.parseLong(m.group(2)) / 1024;
                } else if (m.group(1).equals("MemAvailable")) {
                    available = Long.parseLong(m.group(2)) / 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            return new long[] {-1, -1, 0};
        }
        long[] limit = cgroupLimit();
        if (limit[0] > 0 && (total < 0 || limit[0] < total)) {
            total = limit[0];
            long left = Math.max(0, limit[0] - limit[1]);
            available = available < 0 ? left : Math.min(available, left);
            return new long[] {total, available, 1};
        }
        return new long[] {total, available, 0};
    }

    /** The cgroup's limit and usage (v2, then v1); {0, 0} when unlimited or unknown. */
    private long[] cgroupLimit() {
        long[] v2 = pair(cgroup.resolve("memory.max"), cgroup.resolve("memory.current"));
        if (v2[0] > 0) {
            return v2;
        }
        return pair(cgroup.resolve("memory/memory.limit_in_bytes"), cgroup.resolve("memory/memory.usage_in_bytes"));
    }

    private static long[] pair(Path limitFile, Path usageFile) {
        try {
            String limit = Files.readString(limitFile).trim();
            if (limit.equals("max")) {
                return new long[] {0, 0};
            }
            long limitBytes = Long.parseLong(limit);
            if (limitBytes >= Long.MAX_VALUE / 2) {
                return new long[] {0, 0}; // v1's way of saying unlimited
            }
            long usage = Long.parseLong(Files.readString(usageFile).trim());
            return new long[] {limitBytes >> 20, usage >> 20};
        } catch (IOException | RuntimeException e) {
            return new long[] {0, 0};
        }
    }

    /**
     * guacd's proportional set size, summed over every process named guacd (the listener and one forked child per
     * connection). PSS, not RSS: the children share the listener's pages copy-on-write, and summed RSS would count
     * every shared page once per process (2-3 times the real cost, as measured).
     *
     * @return {PSS in MiB or -1, number of guacd processes}
     */
    long[] guacdPss() {
        long pssKb = 0;
        int processes = 0;
        boolean readable = false;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path process : entries) {
                String comm;
                try {
                    comm = Files.readString(process.resolve("comm")).trim();
                } catch (IOException e) {
                    continue; // gone meanwhile
                }
                if (!comm.equals(guacdName)) {
                    continue;
                }
                processes++;
                try {
                    Matcher m = PSS.matcher(Files.readString(process.resolve("smaps_rollup")));
                    if (m.find()) {
                        pssKb += Long.parseLong(m.group(1));
                        readable = true;
                    }
                } catch (IOException e) {
                    // another user's process without permission, or gone: not counted
                }
            }
        } catch (IOException e) {
            return new long[] {-1, 0};
        }
        return new long[] {readable ? pssKb / 1024 : -1, processes};
    }
}
