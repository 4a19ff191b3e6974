package org.farmgate.testkit.hang;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.PreInterruptCallback;
import org.junit.jupiter.api.extension.PreInterruptContext;

/**
 * When a test or lifecycle method outlives its timeout, prints every thread before JUnit gives up on it, so that a
 * hang reads as a failure with the stacks that explain it. Registered for every test of a module that has the
 * testkit, by JUnit's extension auto-detection (the suite's settings in the root pom).
 */
public final class DumpThreadsOnTimeout implements PreInterruptCallback {

    @Override
    public void beforeThreadInterrupt(PreInterruptContext interrupt, ExtensionContext context) {
        System.err.println(ThreadReport.describe(context.getDisplayName() + " in "
                + context.getRequiredTestClass().getName() + " timed out; its thread \""
                + interrupt.getThreadToInterrupt().getName() + "\" is abandoned"));
    }
}
