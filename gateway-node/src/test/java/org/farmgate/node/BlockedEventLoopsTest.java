package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertFalse;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

/** The check every test node makes at close can fail: an event loop that sleeps is seen. */
@Isolated("it blocks an event loop on purpose, and the check it proves counts every loop of the JVM")
class BlockedEventLoopsTest {

    @Test
    void aBlockedEventLoopIsSeen() throws Exception {
        int mark = BlockedEventLoops.mark();
        Vertx vertx = Vertx.vertx(new VertxOptions().setMaxEventLoopExecuteTime(50)
                .setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS).setBlockedThreadCheckInterval(20)
                .setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS));
        try {
            vertx.runOnContext(ignored -> {
                try {
                    Thread.sleep(BlockedEventLoops.MOST_MS + 500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Awaitility.await().atMost(15, TimeUnit.SECONDS).until(() -> !BlockedEventLoops.since(mark).isEmpty());
            assertFalse(BlockedEventLoops.since(mark).isEmpty());
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }
}
