package org.farmgate.testkit.hang;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;

/**
 * Every thread of this JVM, with whole stacks and what each holds and waits for, deadlocks first: what a hang needs
 * to be understood from a CI log alone. {@link ThreadInfo#toString()} cuts stacks at eight frames, hence our own.
 */
public final class ThreadReport {

    private ThreadReport() {
    }

    public static String describe(String why) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        StringBuilder out = new StringBuilder("\n==== ").append(why).append(": every thread of this JVM ====\n");
        long[] deadlocked = threads.findDeadlockedThreads();
        if (deadlocked != null) {
            out.append("\nDEADLOCK between ").append(deadlocked.length).append(" threads:\n");
            for (ThreadInfo thread : threads.getThreadInfo(deadlocked, true, true)) {
                if (thread != null) {
                    append(out, thread);
                }
            }
            out.append("\nAll threads:\n");
        }
        for (ThreadInfo thread : threads.dumpAllThreads(true, true)) {
            append(out, thread);
        }
        return out.append("==== end of threads ====\n").toString();
    }

    private static void append(StringBuilder out, ThreadInfo thread) {
        out.append('\n').append('"').append(thread.getThreadName()).append("\" #").append(thread.getThreadId())
                .append(thread.isDaemon() ? " daemon " : " ").append(thread.getThreadState());
        if (thread.getLockName() != null) {
            out.append(" on ").append(thread.getLockName());
        }
        if (thread.getLockOwnerName() != null) {
            out.append(" held by \"").append(thread.getLockOwnerName()).append("\" #").append(thread.getLockOwnerId());
        }
        out.append('\n');
        StackTraceElement[] stack = thread.getStackTrace();
        MonitorInfo[] monitors = thread.getLockedMonitors();
        for (int depth = 0; depth < stack.length; depth++) {
            out.append("\tat ").append(stack[depth]).append('\n');
            for (MonitorInfo monitor : monitors) {
                if (monitor.getLockedStackDepth() == depth) {
                    out.append("\t- locked ").append(monitor).append('\n');
                }
            }
        }
        for (LockInfo lock : thread.getLockedSynchronizers()) {
            out.append("\t- holds ").append(lock).append('\n');
        }
    }
}
