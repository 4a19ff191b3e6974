package org.farmgate.node.cluster;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.util.HashMap;
import java.util.Map;
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
        return new Reading(memory[0], memory[1], guacd[0], (int) guacd[1], (int) guacd[2],
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
     * every shared page once per process (2-3 times the real cost, as measured). Not counted: a connection's process
     * that has not reached a console, such as the one the health probe's {@code select} forks every minute (about
     * 5 MB for 15 s: a quarter of one session's cost, counted as a session or into guacd's idle cost otherwise).
     *
     * @return {PSS in MiB or -1, number of guacd processes, number of them that serve a connection to a console}
     */
    long[] guacdPss() {
        Map<Long, GuacdProcess> guacds = new HashMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path process : entries) {
                GuacdProcess read = guacdProcess(process);
                if (read != null) {
                    guacds.put(Long.parseLong(process.getFileName().toString()), read);
                }
            }
        } catch (IOException e) {
            return new long[] {-1, 0, 0};
        }
        long pssKb = 0;
        int connections = 0;
        boolean readable = false;
        for (GuacdProcess process : guacds.values()) {
            // A connection's process that has no socket but the one to guacd's main process has not reached a
            // console: the health probe's (its select forks one that waits 15 s), or one still in its handshake.
            boolean child = guacds.containsKey(process.parent());
            boolean connecting = child && process.sockets() < 2;
            connections += child && !connecting ? 1 : 0;
            if (process.pssKb() >= 0 && !connecting) {
                pssKb += process.pssKb();
                readable = true;
            }
        }
        return new long[] {readable ? pssKb / 1024 : -1, guacds.size(), connections};
    }

    /** @param pssKb -1 when not readable (another user's process) */
    private record GuacdProcess(long parent, long pssKb, int sockets) {
    }

    /** @return null when {@code process} is not guacd, or gone */
    private GuacdProcess guacdProcess(Path process) {
        String stat;
        try {
            if (!Files.readString(process.resolve("comm")).trim().equals(guacdName)) {
                return null;
            }
            stat = Files.readString(process.resolve("stat"));
        } catch (IOException e) {
            return null; // gone meanwhile
        }
        long parent;
        try { // after the command name, which may hold spaces and parentheses: state, then the parent's pid
            parent = Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[1]);
        } catch (RuntimeException e) {
            return null;
        }
        long pssKb = -1;
        try {
            Matcher m = PSS.matcher(Files.readString(process.resolve("smaps_rollup")));
            pssKb = m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (IOException e) {
            // another user's process without permission, or gone: not counted
        }
        return new GuacdProcess(parent, pssKb, sockets(process.resolve("fd")));
    }

    private static int sockets(Path fds) {
        int sockets = 0;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
            for (Path fd : entries) {
                try {
                    sockets += Files.readSymbolicLink(fd).toString().startsWith("socket:") ? 1 : 0;
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        } catch (IOException e) {
            return Integer.MAX_VALUE; // unreadable: counted as a session's, as before this was looked at
        }
        return sockets;
    }
}
