package org.farmgate.router.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLoad;
import org.farmgate.router.Loads;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.router.store.SharedMap;
import org.junit.jupiter.api.Test;

/** What a heartbeat reads: the whole registry when it must or now and then, a sample of a fixed size otherwise. */
class HeartbeatReadTest {

    private final LocalSharedMap<String, NodeLoad> map = new LocalSharedMap<>();
    private final Map<String, Integer> calls = new HashMap<>();
    /** How many nodes each narrowed query named. */
    private final List<Integer> asked = new ArrayList<>();
    private final NodeRegistry registry = new NodeRegistry(counted(map));
    private final AtomicLong placements = new AtomicLong();
    private final HeartbeatRead reads = new HeartbeatRead(registry, "n0", new SplittableRandom(26),
            placements::get);

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private NodeLoad register(int i) {
        return join(registry.publish(Loads.node("n" + i, 1000, 64_000), Set.of()));
    }

    private NodeLoad cluster(int nodes) {
        NodeLoad own = register(0);
        for (int i = 1; i < nodes; i++) {
            register(i);
        }
        calls.clear();
        return own;
    }

    @Test
    void aClusterOfAtMostTheSampleIsReadWholeOnEveryBeat() {
        NodeLoad own = cluster(HeartbeatRead.SAMPLE + 1);
        for (int beat = 0; beat < 3; beat++) {
            HeartbeatRead.View view = join(reads.next(false, own));
            assertTrue(view.whole());
            assertEquals(HeartbeatRead.SAMPLE + 1, view.nodes().size());
        }
        assertEquals(Map.of("query", 3), calls, "no single reads: a sample would be the whole");
    }

    @Test
    void aLargerClusterIsSampledBetweenWholeReads() {
        NodeLoad own = cluster(200);
        HeartbeatRead.View first = join(reads.next(false, own));
        assertTrue(first.whole(), "nothing known yet: the first read is whole");
        assertEquals(200, first.nodes().size());
        assertTrue(beatsToWholeRead(own) <= HeartbeatRead.WHOLE_EVERY, "the first period, at most a whole one");
        calls.clear();
        asked.clear();

        Set<String> met = new HashSet<>();
        for (int beat = 1; beat < HeartbeatRead.WHOLE_EVERY; beat++) {
            HeartbeatRead.View view = join(reads.next(false, own));
            assertFalse(view.whole(), "beat " + beat);
            List<String> ids = view.nodes().stream().map(NodeLoad::nodeId).toList();
            assertEquals(HeartbeatRead.SAMPLE + 1, ids.size());
            assertEquals(ids.size(), Set.copyOf(ids).size(), "drawn without repeats");
            assertTrue(ids.contains("n0"), "its own entry, as its beat wrote it");
            met.addAll(ids);
        }
        assertEquals(Map.of("query near", HeartbeatRead.WHOLE_EVERY - 1), calls, "one narrowed query a beat");
        assertTrue(asked.stream().allMatch(size -> size == HeartbeatRead.SAMPLE), "its own entry is not read: "
                + asked);
        assertTrue(met.size() > 150, "the draws spread over the cluster: " + met.size());

        HeartbeatRead.View again = join(reads.next(false, own));
        assertTrue(again.whole(), "every " + HeartbeatRead.WHOLE_EVERY + "th beat reads every node");
        assertEquals(200, again.nodes().size());
    }

    /** Nodes started together (a cluster restarted at once) do not all read everything on the same beats. */
    @Test
    void nodesStartedTogetherSpreadTheirWholeReads() {
        cluster(200);
        Set<Integer> firstPeriods = new HashSet<>();
        for (int seed = 0; seed < 30; seed++) {
            HeartbeatRead node = new HeartbeatRead(registry, "n0", new SplittableRandom(seed), placements::get);
            NodeLoad own = join(registry.get("n0"));
            assertTrue(join(node.next(false, own)).whole());
            int beats = 1;
            while (!join(node.next(false, own)).whole()) {
                beats++;
            }
            assertTrue(beats <= HeartbeatRead.WHOLE_EVERY, "first period " + beats);
            firstPeriods.add(beats);
        }
        assertTrue(firstPeriods.size() >= 10, "phases spread: " + firstPeriods);
    }

    /** Beats until the next whole read, that one included. */
    private int beatsToWholeRead(NodeLoad own) {
        int beats = 1;
        while (!join(reads.next(false, own)).whole()) {
            beats++;
        }
        return beats;
    }

    /** Two nodes for each placement the router made since the beat before, when that is more than the sample. */
    @Test
    void aRouterThatPlacesManyReadsMore() {
        NodeLoad own = cluster(200);
        join(reads.next(false, own));
        placements.addAndGet(20);
        assertEquals(41, join(reads.next(false, own)).nodes().size(), "40 drawn and its own");
        assertEquals(HeartbeatRead.SAMPLE + 1, join(reads.next(false, own)).nodes().size(), "nothing placed since");
        placements.addAndGet(100);
        HeartbeatRead.View busy = join(reads.next(false, own));
        assertTrue(busy.whole(), "200 to draw from 199: the whole registry, in one query");
    }

    @Test
    void theCoordinatorOrARankedPlacementReadsWholeOnEveryBeat() {
        NodeLoad own = cluster(100);
        for (int beat = 0; beat < 5; beat++) {
            assertTrue(join(reads.next(true, own)).whole());
        }
        assertEquals(Map.of("query", 5), calls);
    }

    /**
     * A node that joined since the last whole read is met at the next; a node gone since leaves the sample; a refused
     * beat's sample has no entry of its own.
     */
    @Test
    void aSampleIsDrawnFromTheLastWholeReadAndKeepsWhatCanBeRead() {
        NodeLoad own = cluster(HeartbeatRead.SAMPLE + 3);
        join(reads.next(false, own));
        beatsToWholeRead(own);
        register(99);
        for (int i = 1; i <= 2; i++) {
            join(registry.depart(join(registry.get("n" + i))));
        }
        for (int beat = 1; beat < HeartbeatRead.WHOLE_EVERY; beat++) {
            HeartbeatRead.View view = join(reads.next(false, beat % 2 == 0 ? own : null));
            List<String> ids = view.nodes().stream().map(NodeLoad::nodeId).toList();
            assertFalse(ids.contains("n99"), "joined after the whole read");
            assertFalse(ids.contains("n1") || ids.contains("n2"), "gone: " + ids);
            assertEquals(ids.size(), Set.copyOf(ids).size(), "others in the same partitions are not in it");
            assertEquals(beat % 2 == 0, ids.contains("n0"));
        }
        List<String> whole = join(reads.next(false, own)).nodes().stream().map(NodeLoad::nodeId).toList();
        assertTrue(whole.contains("n99"));
    }

    /** A sample does not make the router forget the nodes it did not draw, nor meet a stopped one anew. */
    @Test
    void livenessFromSamplesJudgesANodeByItsLastChange() {
        Liveness liveness = new Liveness(Duration.ofSeconds(6));
        NodeLoad stopped = Loads.node("a", 1000, 64_000);
        NodeLoad other = Loads.node("b", 1000, 64_000);
        liveness.observe(List.of(stopped, other), 1_000);
        liveness.observeSome(List.of(other), 5_000);
        assertTrue(liveness.isFresh("a", 5_000), "not drawn, not forgotten");
        liveness.observeSome(List.of(stopped), 9_000);
        assertFalse(liveness.isFresh("a", 9_000), "drawn again with the beat it had 8 s ago");
        NodeLoad moved = new NodeLoad("a", new NodeAddress("member-a2", "127.0.0.1", 8080), stopped.limits(),
                stopped.costModel(), stopped.measurements(), stopped.reservations(), false, stopped.updatedAt());
        liveness.observeSome(List.of(moved), 10_000);
        assertTrue(liveness.isFresh("a", 10_000), "a changed beat");
    }

    /** {@code map} with its reads counted. */
    @SuppressWarnings("unchecked")
    private SharedMap<String, NodeLoad> counted(LocalSharedMap<String, NodeLoad> map) {
        return (SharedMap<String, NodeLoad>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {SharedMap.class}, (proxy, method, args) -> {
                    if (method.getName().equals("get") || method.getName().equals("query")) {
                        boolean near = args.length == 2;
                        calls.merge(near ? "query near" : method.getName(), 1, Integer::sum);
                        if (near) {
                            asked.add(((Set<?>) args[1]).size());
                        }
                    }
                    return method.invoke(map, args);
                });
    }
}
