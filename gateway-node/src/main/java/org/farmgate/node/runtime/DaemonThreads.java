package org.farmgate.node.runtime;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.concurrent.Callable;
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

    /**
     * Runs {@code work}, which blocks, on a thread of its own: the caller may be anywhere, an event loop included,
     * and the answer is bound to no event loop (a failed start closes Vert.x, and a crash may stop the loops while
     * the work runs: an answer bound to a stopped loop would never be delivered, and completing it would throw the
     * loop's rejection at the worker).
     */
    public static <T> Future<T> offTheLoops(String name, Callable<T> work) {
        Promise<T> done = Promise.promise();
        named(name).newThread(() -> {
            try {
                done.complete(work.call());
            } catch (Throwable e) {
                done.fail(e);
            }
        }).start();
        return done.future();
    }
}
