package org.farmgate.testkit.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The suite's awaits are not failed by what another thread of the JVM throws while they wait. */
class OwnFailuresOnlyTest {

    @Test
    void anotherThreadsUncaughtExceptionDoesNotFailAnAwait() throws Exception {
        long until = System.nanoTime() + Duration.ofMillis(300).toNanos();
        Thread dying = new Thread(() -> {
            throw new IllegalStateException("a worker of another test's node, dying");
        }, "another-test-worker");
        // no handler of its own: the JVM's default one is what Awaitility replaces while it waits, when it catches
        Awaitility.await("its own condition").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    if (dying.getState() == Thread.State.NEW) {
                        dying.start();
                    }
                    return System.nanoTime() > until;
                });
        dying.join(5000);
        assertEquals(Thread.State.TERMINATED, dying.getState(), "the other thread threw while the await ran");
    }
}
