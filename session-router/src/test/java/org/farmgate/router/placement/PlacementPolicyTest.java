package org.farmgate.router.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.router.Loads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PlacementPolicyTest {

    private static final DisplaySize D = DisplaySize.DEFAULT;

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("most free memory wins",
                        List.of(Loads.node("a", 1000, 8000), Loads.node("b", 3000, 8000), Loads.node("c", 2000, 8000)),
                        Protocol.RDP, List.of("b", "c", "a")),
                Arguments.of("the host's available memory can be the smaller term",
                        List.of(Loads.node("a", 4000, 900), Loads.node("b", 1000, 8000)),
                        Protocol.RDP, List.of("b", "a")),
                Arguments.of("equal free memory: fewer sessions first, then id",
                        List.of(withSessions(Loads.node("a", 2000, 8000), 2, 1500),
                                withSessions(Loads.node("b", 1800, 8000), 0, 0),
                                withSessions(Loads.node("c", 1800, 8000), 0, 0)),
                        Protocol.SSH, List.of("b", "c", "a")),
                Arguments.of("a node where the session does not fit is no candidate",
                        List.of(Loads.node("a", 50, 8000), Loads.node("b", 150, 8000)),
                        Protocol.RDP, List.of("b")),
                Arguments.of("draining and unhealthy nodes get nothing",
                        List.of(Loads.node("a", 9000, 9000).withDrainRequested(true),
                                unhealthy(Loads.node("b", 9000, 9000)), Loads.node("c", 200, 9000)),
                        Protocol.SSH, List.of("c")),
                Arguments.of("pending reservations count against the host's available memory",
                        List.of(withSessions(Loads.node("a", 10_000, 990), 9, 0), Loads.node("b", 500, 8000)),
                        Protocol.RDP, List.of("b")),
                Arguments.of("the session cap binds before memory",
                        List.of(capped(Loads.node("a", 9000, 9000), 1), Loads.node("b", 100, 9000)),
                        Protocol.RDP, List.of("b")),
                Arguments.of("the per-core cap binds before memory",
                        List.of(perCore(withSessions(Loads.node("a", 9000, 9000), 4, 9000), 1),
                                Loads.node("b", 100, 9000)),
                        Protocol.SSH, List.of("b")),
                Arguments.of("nothing fits", List.of(Loads.node("a", 99, 9000)), Protocol.RDP, List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void ranks(String name, List<NodeLoad> nodes, Protocol protocol, List<String> expected) {
        List<String> ranked = PlacementPolicy.rank(nodes, protocol, D).stream()
                .map(PlacementPolicy.Candidate::nodeId).toList();
        assertEquals(expected, ranked);
    }

    /**
     * The best of d drawn first, then every other candidate best first. With 2 of 4 drawn evenly, a node leads as
     * often as pairs have it as their best: never the worst.
     */
    @Test
    void samplesTheBestOfDDrawnAtRandomAndKeepsTheRestAsFallBack() {
        List<NodeLoad> nodes = List.of(Loads.node("a", 1000, 8000), Loads.node("b", 3000, 8000),
                Loads.node("c", 2000, 8000), Loads.node("d", 4000, 8000), Loads.node("full", 50, 8000));
        Map<String, Integer> first = new TreeMap<>();
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 6000; i++) {
            List<String> order = sampled(nodes, node -> true, 2, random);
            assertEquals(4, order.size(), "every node that fits, once: " + order);
            assertEquals(Set.of("a", "b", "c", "d"), Set.copyOf(order));
            List<String> rest = order.subList(2, 4);
            assertEquals(rest.stream().sorted(Comparator.comparing(id -> List.of("d", "b", "c", "a")
                    .indexOf(id))).toList(), rest, "the rest best first");
            first.merge(order.get(0), 1, Integer::sum);
        }
        // With 2 of 4 drawn, the best of the pair leads: d in 3 of 6 pairs, b in 2, c in 1, a never.
        assertEquals(Set.of("b", "c", "d"), first.keySet(), first.toString());
        assertEquals(3000, first.get("d"), 200);
        assertEquals(2000, first.get("b"), 200);
        assertEquals(1000, first.get("c"), 200);
        assertEquals(List.of("d", "b"), sampled(nodes, node -> true, 9, random).subList(0, 2),
                "more drawn than there are: ranked");
    }

    /**
     * A draw judges the nodes it meets, not the cluster: taking the drawn two of a thousand looks at a few nodes,
     * and the rest is judged only when asked for. Nodes the router does not take (stale, excluded) and gone ones
     * (null) are never candidates, drawn or not.
     */
    @Test
    void aDrawJudgesOnlyTheNodesItMeetsAndSkipsTheIneligible() {
        List<NodeLoad> nodes = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            nodes.add(i % 10 == 0 ? null : Loads.node("n" + i, 1000 + i, 8000));
        }
        AtomicInteger judged = new AtomicInteger();
        Predicate<NodeLoad> eligible = node -> {
            judged.incrementAndGet();
            return !node.nodeId().endsWith("1");
        };
        Iterator<PlacementPolicy.Candidate> order = PlacementPolicy.sample(nodes, eligible, Protocol.RDP, D,
                2, new SplittableRandom(3));
        String first = order.next().nodeId();
        String second = order.next().nodeId();
        assertTrue(judged.get() < 20, judged + " nodes judged for a draw of two");
        Set<String> seen = new HashSet<>(List.of(first, second));
        order.forEachRemaining(candidate -> assertTrue(
                seen.add(candidate.nodeId()), candidate.nodeId() + " offered twice"));
        assertEquals(800, seen.size(), "every eligible node once: 900 present, 100 of them ending in 1");
        assertTrue(seen.stream().noneMatch(id -> id.endsWith("1")));
    }

    private static List<String> sampled(List<NodeLoad> nodes, Predicate<NodeLoad> eligible,
            int choices, RandomGenerator random) {
        List<String> out = new ArrayList<>();
        PlacementPolicy.sample(nodes, eligible, Protocol.RDP, D, choices, random)
                .forEachRemaining(candidate -> out.add(candidate.nodeId()));
        return out;
    }

    /** {@code count} pending RDP reservations of {@code eachMb} (0: the node's own charge). */
    private static NodeLoad withSessions(NodeLoad node, int count, int totalMb) {
        ReservationBook book = node.reservations();
        for (int i = 0; i < count; i++) {
            int mb = totalMb == 0 ? 100 : totalMb / count;
            book = book.with(new Reservation(node.nodeId() + "-" + i, Protocol.RDP, mb, false, Instant.EPOCH));
        }
        return node.withReservations(book);
    }

    private static NodeLoad unhealthy(NodeLoad node) {
        HostMeasurements m = node.measurements();
        return new NodeLoad(node.nodeId(), node.address(), node.limits(), node.costModel(),
                new HostMeasurements(m.hostTotalMb(), m.hostAvailableMb(), -1, -1, false, m.cpuCount(),
                        m.loadAverage(), m.measuredAt()), node.reservations(), false, node.updatedAt());
    }

    private static NodeLoad capped(NodeLoad node, int maxSessions) {
        NodeLimits l = node.limits();
        NodeLoad capped = new NodeLoad(node.nodeId(), node.address(), new NodeLimits(l.budgetMb(), l.marginMb(),
                maxSessions, 0), node.costModel(), node.measurements(), node.reservations(), false, node.updatedAt());
        return withSessions(capped, maxSessions, 100);
    }

    private static NodeLoad perCore(NodeLoad node, int perCore) {
        NodeLimits l = node.limits();
        return new NodeLoad(node.nodeId(), node.address(), new NodeLimits(l.budgetMb(), l.marginMb(),
                l.maxSessions(), perCore), node.costModel(), node.measurements(), node.reservations(), false,
                node.updatedAt());
    }

}
