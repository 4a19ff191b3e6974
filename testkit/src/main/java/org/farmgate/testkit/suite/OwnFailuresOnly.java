package org.farmgate.testkit.suite;

import org.awaitility.Awaitility;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * An await judges its own condition, not whatever another thread of the JVM throws meanwhile. Awaitility by default
 * fails an await with any exception uncaught in any thread; with {@link WaitBound} classes running beside the main
 * sequence, one test's node dying (a worker of a Vert.x being closed) failed another test that happened to be
 * waiting (CI saw it). Each test checks its own nodes' unhandled exceptions instead ({@code TestNode}'s close).
 */
public final class OwnFailuresOnly implements LauncherSessionListener {

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        Awaitility.doNotCatchUncaughtExceptionsByDefault();
    }
}
