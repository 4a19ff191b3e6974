package org.farmgate.testkit.suite;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A test class that spends most of its time waiting (members timing out, a database going away, processes
 * starting), so it may run beside the suite's main sequence instead of in it: the suite then takes about the longer
 * of the two sequences instead of their sum, on a machine of two cores.
 *
 * <p>The shared lock keeps wait-bound classes one at a time among themselves, and on a class it also keeps the
 * class's own methods in one thread (JUnit runs every descendant of a node holding a lock in the same thread), so a
 * class's cluster is never used by two of its tests at once. Every other class runs in the main sequence as before.
 * A class that measures time or CPU, starts the suite's one Chromium or Keycloak, or counts the JVM's threads does
 * not belong here.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitBound.LOCK)
public @interface WaitBound {
    /** Held by each wait-bound class while it runs. */
    String LOCK = "org.farmgate.testkit.suite.WaitBound";
}
