package org.farmgate.node.runtime;

import java.util.concurrent.ThreadFactory;

/** Threads of the node's own pools: named for thread dumps, and daemons, so that none of them keeps a JVM alive. */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    public static ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
