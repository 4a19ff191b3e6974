package org.farmgate.bench.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a JVM process holds, read from outside: RSS and threads from /proc, heap after a full GC and native memory
 * (NMT, which counts direct buffers under "Other") through jcmd. The process must run with
 * {@code -XX:NativeMemoryTracking=summary} for the native figures.
 */
public final class ProcessProbe {

    /** One reading, in KiB where it is memory. */
    public record Reading(long rssKb, int threads, long heapUsedKb, long nmtCommittedKb, long nmtOtherKb) {
    }

    private static final Pattern HEAP_USED = Pattern.compile("total \\d+K, used (\\d+)K");
    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB");
    private static final Pattern NMT_OTHER = Pattern.compile("-\\s+Other \\(reserved=\\d+KB, committed=(\\d+)KB\\)");

    private ProcessProbe() {
    }

    public static Reading read(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        String heap = jcmd(pid, "GC.heap_info");
        String nmt = jcmd(pid, "VM.native_memory", "summary");
        String status = Files.readString(Path.of("/proc", String.valueOf(pid), "status"));
        return new Reading(statusField(status, "VmRSS"), (int) statusField(status, "Threads"),
                sum(HEAP_USED, heap), first(NMT_TOTAL, nmt), first(NMT_OTHER, nmt));
    }

    private static long statusField(String status, String field) {
        Matcher m = Pattern.compile("^" + field + ":\\s+(\\d+)", Pattern.MULTILINE).matcher(status);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static long sum(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        long total = 0;
        while (m.find()) {
            total += Long.parseLong(m.group(1));
        }
        return total;
    }

    private static long first(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static String jcmd(long pid, String... command) throws IOException, InterruptedException {
        String[] args = new String[command.length + 2];
        args[0] = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        args[1] = String.valueOf(pid);
        System.arraycopy(command, 0, args, 2, command.length);
        Process process = new ProcessBuilder(args).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        process.waitFor(30, TimeUnit.SECONDS);
        return out;
    }
}
