package org.farmgate.node.runtime;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import com.hazelcast.instance.impl.LifecycleServiceImpl;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.farmgate.node.TestNode;
import org.junit.jupiter.api.Test;

/**
 * A node's stop against Hazelcast's own lifecycle work, in the lock order that once froze the suite: Hazelcast holds
 * its lifecycle lock while it tells its listeners of a merge (after a split heals) or of a shutdown, and Vert.x's
 * cluster manager listens under its own monitor, which its leave holds.
 */
class ShutdownLockOrderTest {

    /**
     * A SIGTERM's stop while a split's merge runs, replayed as Hazelcast's {@code ClusterServiceImpl.merge} runs it:
     * under the lifecycle lock, ending with the MERGED event to every listener. Before the node owned its member, the
     * leave held the manager's monitor waiting for the lifecycle lock, and the MERGED event waited for the monitor.
     */
    @Test
    void aStopMeetingAMergeEnds() throws Exception {
        TestNode node = TestNode.start();
        HazelcastInstance member = node.node.runtime().hazelcast();
        LifecycleServiceImpl lifecycle = (LifecycleServiceImpl) member.getLifecycleService();
        CountDownLatch merging = new CountDownLatch(1);
        Thread merge = new Thread(() -> lifecycle.runUnderLifecycleLock(() -> {
            merging.countDown();
            awaitALeave(Thread.currentThread());
            lifecycle.fireLifecycleEvent(LifecycleState.MERGED);
        }), "test-merge");
        merge.setDaemon(true);
        merge.start();
        assertTrue(merging.await(10, TimeUnit.SECONDS));

        node.node.stop().await(30, TimeUnit.SECONDS);

        merge.join(10_000);
        assertFalse(merge.isAlive(), "the merge ended");
        assertFalse(member.getLifecycleService().isRunning(), "the node left the cluster: its member is down");
    }

    /** The suite's freeze as it happened: a crash while a graceful stop is under way. */
    @Test
    void aCrashDuringAGracefulStopEnds() throws Exception {
        TestNode node = TestNode.start();
        HazelcastInstance member = node.node.runtime().hazelcast();
        node.sshSession();
        io.vertx.core.Future<Void> graceful = node.node.shutdown(Duration.ofSeconds(2));

        node.crash();

        graceful.await(30, TimeUnit.SECONDS);
        assertFalse(member.getLifecycleService().isRunning());
    }

    /**
     * Waits (up to 10 s) until the node's stop reached the cluster manager: a thread inside its leave, holding its
     * monitor, or a thread waiting for the lifecycle lock that {@code merge} holds.
     */
    private static void awaitALeave(Thread merge) {
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() ->
                Arrays.stream(ManagementFactory.getThreadMXBean().dumpAllThreads(true, false))
                        .anyMatch(thread -> inLeave(thread) || thread.getLockOwnerId() == merge.getId()));
    }

    private static boolean inLeave(ThreadInfo thread) {
        boolean holdsManager = Arrays.stream(thread.getLockedMonitors()).map(MonitorInfo::getClassName)
                .anyMatch(HazelcastClusterManager.class.getName()::equals);
        return holdsManager && Arrays.stream(thread.getStackTrace()).anyMatch(frame ->
                frame.getClassName().startsWith(HazelcastClusterManager.class.getName())
                        && frame.getMethodName().contains("leave"));
    }
}
