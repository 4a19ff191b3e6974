package org.farmgate.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.router.registry.NodeRegistry;
import org.farmgate.router.store.LocalSharedMap;
import org.junit.jupiter.api.Test;

class SessionRouterTest {

    private final LocalSharedMap<String, NodeLoad> map = new LocalSharedMap<>();
    private final NodeRegistry registry = new NodeRegistry(map);
    private final SessionRouter router = new SessionRouter(registry, Clock.systemUTC(), java.time.Duration.ZERO);

    @Test
    void concurrentCreatesNeverOvercommitAndFillEveryNode() throws Exception {
        // three nodes whose budgets hold 100 SSH sessions of 10 MB each
        for (String id : List.of("a", "b", "c")) {
            registry.publish(Loads.node(id, 1000, 64_000)).toCompletableFuture().join();
        }
        ExecutorService pool = Executors.newFixedThreadPool(16);
        AtomicInteger placed = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        ConcurrentHashMap<String, AtomicInteger> perNode = new ConcurrentHashMap<>();
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            String id = "s" + i;
            futures.add(pool.submit(() -> {
                try {
                    SessionRouter.Placement p = router.place(id, Protocol.SSH, DisplaySize.DEFAULT, Set.of())
                            .toCompletableFuture().join();
                    placed.incrementAndGet();
                    perNode.computeIfAbsent(p.nodeId(), k -> new AtomicInteger()).incrementAndGet();
                } catch (CompletionException e) {
                    assertInstanceOf(NoCapacityException.class, e.getCause());
                    refused.incrementAndGet();
                }
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        assertEquals(300, placed.get());
        assertEquals(700, refused.get());
        for (String id : List.of("a", "b", "c")) {
            NodeLoad node = registry.get(id).toCompletableFuture().join();
            assertEquals(1000, node.reservations().reservedMb(), "node " + id + " exactly full");
            assertEquals(100, perNode.get(id).get());
        }
    }

    @Test
    void releaseIsIdempotentAndFreesTheMemory() {
        registry.publish(Loads.node("a", 100, 64_000)).toCompletableFuture().join();
        SessionRouter.Placement p = router.place("s1", Protocol.RDP, DisplaySize.DEFAULT, Set.of())
                .toCompletableFuture().join();
        assertEquals("a", p.nodeId());
        assertEquals(100, p.chargedMb());
        CompletionException full = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> router.place("s2", Protocol.RDP, DisplaySize.DEFAULT, Set.of()).toCompletableFuture().join());
        assertTrue(full.getCause().getMessage().contains("a: 0 MB free, a rdp session needs 100 MB"),
                full.getCause().getMessage());
        assertTrue(router.release("a", "s1").toCompletableFuture().join());
        assertEquals(false, router.release("a", "s1").toCompletableFuture().join());
        assertEquals("a", router.place("s2", Protocol.RDP, DisplaySize.DEFAULT, Set.of()).toCompletableFuture()
                .join().nodeId());
    }

    @Test
    void aRefreshKeepsReservationsAndTheDrainFlag() {
        registry.publish(Loads.node("a", 1000, 64_000)).toCompletableFuture().join();
        router.place("s1", Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture().join();
        registry.setDrain("a", true).toCompletableFuture().join();
        registry.publish(Loads.node("a", 2000, 64_000)).toCompletableFuture().join();
        NodeLoad node = registry.get("a").toCompletableFuture().join();
        assertEquals(2000, node.limits().budgetMb());
        assertEquals(1, node.reservations().sessionCount());
        assertTrue(node.drainRequested());
        assertInstanceOf(NoCapacityException.class, org.junit.jupiter.api.Assertions.assertThrows(
                CompletionException.class, () -> router.place("s2", Protocol.SSH, DisplaySize.DEFAULT, Set.of())
                        .toCompletableFuture().join()).getCause());
    }

    @Test
    void excludedNodesAreSkipped() {
        registry.publish(Loads.node("a", 5000, 64_000)).toCompletableFuture().join();
        registry.publish(Loads.node("b", 1000, 64_000)).toCompletableFuture().join();
        assertEquals("b", router.place("s", Protocol.SSH, DisplaySize.DEFAULT, Set.of("a")).toCompletableFuture()
                .join().nodeId());
    }
}
