package org.farmgate.testkit.hang;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.event;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.EventConditions.test;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.platform.testkit.engine.EngineTestKit;

/**
 * The suite's own settings (the root pom's, as surefire hands them to JUnit) turn a deadlocked test into a failure
 * with every thread printed, the deadlock named, instead of a run that never ends. Only the timeout is shortened.
 */
class HangsFailTest {

    private static final String[] SUITE_SETTINGS = {"junit.jupiter.execution.timeout.thread.mode.default",
        "junit.jupiter.extensions.autodetection.enabled", "junit.jupiter.extensions.autodetection.include"};
    private static final java.util.Map<String, String> settings = new java.util.HashMap<>();

    @RegisterExtension
    static final BeforeAllCallback READ_SETTINGS = context -> {
        for (String key : SUITE_SETTINGS) {
            settings.put(key, context.getConfigurationParameter(key).orElseThrow(() -> new AssertionError(
                    key + " is not set for this test run: the suite's settings did not reach JUnit")));
        }
    };

    @Test
    void aDeadlockedTestFailsWithTheThreadsPrinted() {
        PrintStream err = System.err;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setErr(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            EngineTestKit.engine("junit-jupiter").configurationParameters(settings)
                    .configurationParameter("junit.jupiter.execution.timeout.default", "1 s")
                    .selectors(selectClass(Deadlocks.class)).execute()
                    .testEvents().assertThatEvents().haveExactly(1,
                            event(test("twoLocksTakenInOppositeOrders"),
                                    finishedWithFailure(instanceOf(TimeoutException.class))));
        } finally {
            System.setErr(err);
        }
        String report = printed.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("twoLocksTakenInOppositeOrders() in " + Deadlocks.class.getName() + " timed out"),
                report);
        assertTrue(report.contains("DEADLOCK between 2 threads"), report);
        assertTrue(report.contains("\"the-other-order\""), report);
    }

    /** Run only through {@link EngineTestKit} above. */
    static class Deadlocks {

        private static final Object FIRST = new Object();
        private static final Object SECOND = new Object();

        @Test
        void twoLocksTakenInOppositeOrders() throws InterruptedException {
            CountDownLatch bothHeld = new CountDownLatch(2);
            Thread other = new Thread(() -> {
                synchronized (SECOND) {
                    bothHeld.countDown();
                    awaitQuietly(bothHeld);
                    synchronized (FIRST) {
                        bothHeld.countDown();
                    }
                }
            }, "the-other-order");
            other.setDaemon(true);
            other.start();
            synchronized (FIRST) {
                bothHeld.countDown();
                bothHeld.await();
                synchronized (SECOND) {
                    bothHeld.countDown();
                }
            }
        }

        private static void awaitQuietly(CountDownLatch latch) {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
