package org.farmgate.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
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
    private final SessionRouter router = new SessionRouter(registry, Clock.systemUTC(), java.time.Duration.ZERO,
            java.time.Duration.ofMinutes(1));

    @Test
    void concurrentCreatesNeverOvercommitAndFillEveryNode() throws Exception {
        fillsEveryNodeExactly(router);
    }

    /** The best of two drawn at random: the reservation still decides, so the same holds. */
    @Test
    void concurrentCreatesWithTwoChoicesNeverOvercommitAndFillEveryNode() throws Exception {
        fillsEveryNodeExactly(new SessionRouter(registry, Clock.systemUTC(), java.time.Duration.ZERO,
                java.time.Duration.ofMinutes(1), 2, SessionRouter.threadLocalRandom()));
    }

    /**
     * A router prefers the node it runs on while that node is within four sessions of the best: the first five
     * sessions of three empty nodes stay on it (ties would go to "a" otherwise), the next goes to another; filled
     * concurrently, every node still ends exactly full.
     */
    @Test
    void aRouterPrefersItsOwnNodeWhileItIsNearlyTheBestAndStillFillsEveryNode() throws Exception {
        for (String id : List.of("a", "b", "c")) {
            registry.publish(Loads.node(id, 1000, 64_000), Set.of()).toCompletableFuture().join();
        }
        SessionRouter onC = new SessionRouter(registry, Clock.systemUTC(), java.time.Duration.ZERO,
                java.time.Duration.ofMinutes(1), 0, SessionRouter.threadLocalRandom(), "c");
        List<String> placedOn = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            placedOn.add(onC.place("first-" + i, Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture()
                    .join().nodeId());
        }
        assertEquals(List.of("c", "c", "c", "c", "c", "a"), placedOn,
                "10 MB each: c takes five, then it would be more than four behind");
        for (int i = 0; i < placedOn.size(); i++) {
            registry.release(placedOn.get(i), "first-" + i).toCompletableFuture().join();
        }
        fillsEveryNodeExactly(new SessionRouter(registry, Clock.systemUTC(), java.time.Duration.ZERO,
                java.time.Duration.ofMinutes(1), 2, SessionRouter.threadLocalRandom(), "c"));
    }

    /**
     * A heartbeat's sample as the snapshot (past 17 nodes, with two choices): placement draws from the nodes it has,
     * and reads every node before it would refuse.
     */
    @Test
    void aSampledSnapshotPlacesWithinItAndReadsEveryNodeBeforeRefusing() {
        for (String id : List.of("a", "b")) {
            registry.publish(Loads.node(id, 1000, 64_000), Set.of()).toCompletableFuture().join();
        }
        for (String id : List.of("c", "d")) {
            registry.publish(Loads.node(id, 30, 64_000), Set.of()).toCompletableFuture().join(); // 3 SSH each
        }
        SessionRouter sampled = new SessionRouter(registry, Clock.systemUTC(), java.time.Duration.ofMinutes(1),
                java.time.Duration.ofMinutes(1), 2, SessionRouter.threadLocalRandom());
        // its first placement reads for itself
        sampled.place("first", Protocol.SSH, DisplaySize.DEFAULT, Set.of("c", "d")).toCompletableFuture().join();
        sampled.offer(List.of(registry.get("c").toCompletableFuture().join(),
                registry.get("d").toCompletableFuture().join()), false);
        List<String> placedOn = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            placedOn.add(sampled.place("s" + i, Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture()
                    .join().nodeId());
        }
        assertTrue(placedOn.subList(0, 6).stream().allMatch(id -> id.equals("c") || id.equals("d")), placedOn
                .toString());
        assertTrue(placedOn.subList(6, 10).stream().allMatch(id -> id.equals("a") || id.equals("b")),
                "the sample full, every node read: " + placedOn);
    }

    private void fillsEveryNodeExactly(SessionRouter router) throws Exception {
        // three nodes whose budgets hold 100 SSH sessions of 10 MB each
        for (String id : List.of("a", "b", "c")) {
            registry.publish(Loads.node(id, 1000, 64_000), Set.of()).toCompletableFuture().join();
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
        registry.publish(Loads.node("a", 100, 64_000), Set.of()).toCompletableFuture().join();
        SessionRouter.Placement p = router.place("s1", Protocol.RDP, DisplaySize.DEFAULT, Set.of())
                .toCompletableFuture().join();
        assertEquals("a", p.nodeId());
        assertEquals(100, p.chargedMb());
        CompletionException full = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                () -> router.place("s2", Protocol.RDP, DisplaySize.DEFAULT, Set.of()).toCompletableFuture().join());
        String reason = assertInstanceOf(NoCapacityException.class, full.getCause()).reason();
        assertTrue(reason.contains("a: 0 MB free, a rdp session needs 100 MB"), reason);
        assertTrue(registry.release("a", "s1").toCompletableFuture().join());
        assertEquals(false, registry.release("a", "s1").toCompletableFuture().join());
        assertEquals("a", router.place("s2", Protocol.RDP, DisplaySize.DEFAULT, Set.of()).toCompletableFuture()
                .join().nodeId());
    }

    @Test
    void aRefreshKeepsReservationsAndTheDrainFlag() {
        registry.publish(Loads.node("a", 1000, 64_000), Set.of()).toCompletableFuture().join();
        router.place("s1", Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture().join();
        registry.setDrain("a", true).toCompletableFuture().join();
        registry.publish(Loads.node("a", 2000, 64_000), Set.of()).toCompletableFuture().join();
        NodeLoad node = registry.get("a").toCompletableFuture().join();
        assertEquals(2000, node.limits().budgetMb());
        assertEquals(1, node.reservations().sessionCount());
        assertTrue(node.drainRequested());
        assertInstanceOf(NoCapacityException.class, org.junit.jupiter.api.Assertions.assertThrows(
                CompletionException.class, () -> router.place("s2", Protocol.SSH, DisplaySize.DEFAULT, Set.of())
                        .toCompletableFuture().join()).getCause());
    }

    @Test
    void aRefreshReconcilesReservationsWithTheSessionsTheNodeHolds() {
        registry.publish(Loads.node("a", 1000, 64_000), Set.of()).toCompletableFuture().join();
        router.place("orphan", Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture().join();
        router.place("opened", Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture().join();
        // The node holds "opened" (active by now) and "lost-update", a session whose reservation never arrived;
        // "orphan" was reserved by a router that never delivered it: the node has seen it unheld for too long.
        org.farmgate.model.ReservationBook local = org.farmgate.model.ReservationBook.EMPTY
                .with(new org.farmgate.model.Reservation("opened", Protocol.SSH, 10, true, Instant.EPOCH))
                .with(new org.farmgate.model.Reservation("lost-update", Protocol.SSH, 10, true, Instant.EPOCH));
        registry.publish(Loads.node("a", 1000, 64_000).withReservations(local), Set.of("orphan"))
                .toCompletableFuture().join();
        NodeLoad node = registry.get("a").toCompletableFuture().join();
        assertEquals(Set.of("opened", "lost-update"), node.reservations().entries().keySet());
        assertEquals(0, node.reservations().pendingMb());
        assertEquals(20, node.reservations().reservedMb());
        // A reservation the node does not hold and has not given up on yet is kept.
        router.place("on-its-way", Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture().join();
        registry.publish(Loads.node("a", 1000, 64_000).withReservations(local), Set.of("orphan"))
                .toCompletableFuture().join();
        assertTrue(registry.get("a").toCompletableFuture().join().reservations().entries().containsKey("on-its-way"));
    }

    @Test
    void excludedNodesAreSkipped() {
        registry.publish(Loads.node("a", 5000, 64_000), Set.of()).toCompletableFuture().join();
        registry.publish(Loads.node("b", 1000, 64_000), Set.of()).toCompletableFuture().join();
        assertEquals("b", router.place("s", Protocol.SSH, DisplaySize.DEFAULT, Set.of("a")).toCompletableFuture()
                .join().nodeId());
    }

    @Test
    void aNodeWhoseBeatStoppedTakesNoNewSession() {
        java.util.concurrent.atomic.AtomicLong millis = new java.util.concurrent.atomic.AtomicLong(1_000);
        Clock ticking = new Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return Instant.ofEpochMilli(millis.get());
            }
        };
        SessionRouter watching = new SessionRouter(registry, ticking, java.time.Duration.ZERO,
                java.time.Duration.ofSeconds(6));
        // "a" has more room, so it is preferred while it beats; then it stops (a paused JVM) and "b" goes on.
        registry.publish(Loads.node("a", 5000, 64_000), Set.of()).toCompletableFuture().join();
        registry.publish(Loads.node("b", 1000, 64_000), Set.of()).toCompletableFuture().join();
        assertEquals("a", watching.place("s0", Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture()
                .join().nodeId());
        for (int beat = 1; beat <= 7; beat++) {
            millis.addAndGet(1_000);
            NodeLoad b = Loads.node("b", 1000, 64_000);
            registry.publish(new NodeLoad("b", b.address(), b.limits(), b.costModel(), b.measurements(),
                    b.reservations(), false, Loads.T0.plusSeconds(beat)), Set.of()).toCompletableFuture().join();
            watching.place("s" + beat, Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture().join();
        }
        assertEquals("b", watching.place("late", Protocol.SSH, DisplaySize.DEFAULT, Set.of()).toCompletableFuture()
                .join().nodeId(), "a's beat is 7 s old on the router's clock");
    }
}
