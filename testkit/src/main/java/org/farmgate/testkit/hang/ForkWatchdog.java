package org.farmgate.testkit.hang;

import java.util.concurrent.TimeUnit;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The last net under the per-method timeouts: when a test JVM has run longer than the system property
 * {@value #DEADLINE} (seconds) says, whatever holds it (a shared resource closing at the end, a JVM that will not
 * exit), it prints every thread and ends itself, so that the build fails with the reason instead of waiting for CI's
 * own limit. Surefire's fork timeout, a little later, still kills a JVM that cannot even do that.
 */
public final class ForkWatchdog implements LauncherSessionListener {

    public static final String DEADLINE = "farmgate.test.forkDeadlineSeconds";
    /** The exit status of a fork the watchdog ended. */
    public static final int EXIT_STATUS = 97;

    /** One per JVM, counting from the first session, through the JVM's exit: a daemon that ends with it. */
    private static Thread watchdog;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        long seconds = Long.getLong(DEADLINE, 0);
        synchronized (ForkWatchdog.class) {
            if (seconds <= 0 || watchdog != null) {
                return;
            }
            watchdog = new Thread(() -> watch(seconds), "farmgate-fork-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        }
    }

    private static void watch(long seconds) {
        try {
            TimeUnit.SECONDS.sleep(seconds);
        } catch (InterruptedException e) {
            return;
        }
        System.err.println(ThreadReport.describe("this test JVM ran past " + DEADLINE + "=" + seconds));
        System.err.flush();
        Runtime.getRuntime().halt(EXIT_STATUS);
    }
}
