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

    /** RDP costs 100 MB on these nodes: the receiving node goes first while it is within four sessions of the best. */
    static Stream<Arguments> preferred() {
        return Stream.of(
                Arguments.of("within four sessions of the best: first", "b",
                        List.of(Loads.node("a", 3000, 8000), Loads.node("b", 2750, 8000), Loads.node("c", 1000, 8000)),
                        List.of("b", "a", "c")),
                Arguments.of("exactly four sessions behind: first", "b",
                        List.of(Loads.node("a", 3000, 8000), Loads.node("b", 2600, 8000)), List.of("b", "a")),
                Arguments.of("more than four sessions behind: in its place", "b",
                        List.of(Loads.node("a", 3000, 8000), Loads.node("b", 2599, 8000)), List.of("a", "b")),
                Arguments.of("already the best", "a",
                        List.of(Loads.node("a", 3000, 8000), Loads.node("b", 2990, 8000)), List.of("a", "b")),
                Arguments.of("draining: no candidate at all", "b",
                        List.of(Loads.node("a", 3000, 8000), Loads.node("b", 3000, 8000).withDrainRequested(true)),
                        List.of("a")),
                Arguments.of("the session does not fit there", "b",
                        List.of(Loads.node("a", 150, 8000), Loads.node("b", 99, 8000)), List.of("a")),
                Arguments.of("behind by its host's available memory, not its budget", "b",
                        List.of(Loads.node("a", 3000, 8000), Loads.node("b", 9000, 2500)), List.of("a", "b")),
                Arguments.of("no node preferred", null,
                        List.of(Loads.node("a", 3000, 8000), Loads.node("b", 2950, 8000)), List.of("a", "b")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("preferred")
    void ranksTheReceivingNodeFirstWhileItIsNearlyTheBest(String name, String preferred, List<NodeLoad> nodes,
            List<String> expected) {
        assertEquals(expected, PlacementPolicy.rank(nodes, Protocol.RDP, D, preferred).stream()
                .map(PlacementPolicy.Candidate::nodeId).toList());
        NodeLoad own = nodes.stream().filter(node -> node.nodeId().equals(preferred)).findFirst().orElse(null);
        List<String> drawn = new ArrayList<>();
        PlacementPolicy.sample(nodes, node -> true, Protocol.RDP, D, nodes.size(), new SplittableRandom(1), own)
                .forEachRemaining(candidate -> drawn.add(candidate.nodeId()));
        assertEquals(expected, drawn, "every node drawn: the same order");
    }

    /**
     * A node that receives every request, and is preferred for it, takes one only while it is at most four sessions
     * behind the emptiest node, so it is left at most five behind; the others take what it leaves, so the four stay
     * as level as ranking alone keeps them, and with sessions ending anywhere meanwhile it never drifts further than
     * those endings push it.
     */
    @Test
    void aNodeThatReceivesEveryRequestTakesOneOnlyWithinFourSessionsOfTheEmptiest() {
        Map<String, NodeLoad> nodes = new TreeMap<>();
        List<String> ids = List.of("a", "b", "c", "d");
        ids.forEach(id -> nodes.put(id, Loads.node(id, 100_000, 200_000)));
        SplittableRandom random = new SplittableRandom(11);
        Map<String, Integer> taken = new TreeMap<>();
        long widest = 0;
        for (int i = 0; i < 2000; i++) {
            long emptiest = nodes.values().stream().mapToLong(NodeLoad::freeMb).max().orElseThrow();
            NodeLoad node = nodes.get(PlacementPolicy.rank(nodes.values(), Protocol.RDP, D, "a").get(0).nodeId());
            taken.merge(node.nodeId(), 1, Integer::sum);
            nodes.put(node.nodeId(), node.withReservations(node.reservations().with(
                    new Reservation("s" + i, Protocol.RDP, 100, false, Instant.EPOCH))));
            if (node.nodeId().equals("a")) {
                assertTrue(nodes.get("a").freeMb() >= emptiest - 500, "session " + i + ": the receiving node left "
                        + nodes.get("a").freeMb() + " MB free, the emptiest had " + emptiest);
            }
            if (random.nextInt(2) == 0) { // a session somewhere ends
                NodeLoad ending = nodes.get(ids.get(random.nextInt(ids.size())));
                ending.reservations().entries().keySet().stream().sorted().findFirst().ifPresent(gone -> nodes.put(
                        ending.nodeId(), ending.withReservations(ending.reservations().without(gone))));
            }
            widest = Math.max(widest, nodes.values().stream().mapToLong(NodeLoad::freeMb).max().orElseThrow()
                    - nodes.get("a").freeMb());
        }
        ids.forEach(id -> assertEquals(500, taken.get(id), 60, "a quarter each: " + taken));
        assertTrue(widest <= 900, "the receiving node at most " + widest + " MB behind the emptiest");
    }

    /**
     * With a preferred node, it is always one of the two and the other is drawn evenly from the rest: behind the
     * others by more than four sessions, it is never first and each other leads as often as it is drawn.
     */
    @Test
    void thePreferredNodeIsAlwaysOneOfTheDrawnAndTheOthersAreDrawnEvenly() {
        List<NodeLoad> nodes = List.of(Loads.node("a", 1000, 8000), Loads.node("b", 3000, 8000),
                Loads.node("c", 2000, 8000), Loads.node("d", 4000, 8000));
        Map<String, Integer> first = new TreeMap<>();
        SplittableRandom random = new SplittableRandom(5);
        for (int i = 0; i < 6000; i++) {
            List<String> order = new ArrayList<>();
            PlacementPolicy.sample(nodes, node -> true, Protocol.RDP, D, 2, random, nodes.get(0))
                    .forEachRemaining(candidate -> order.add(candidate.nodeId()));
            assertEquals("a", order.get(1), "drawn, and second: " + order);
            first.merge(order.get(0), 1, Integer::sum);
        }
        assertEquals(Set.of("b", "c", "d"), first.keySet());
        first.values().forEach(count -> assertEquals(2000, count, 200, first.toString()));
        List<String> order = new ArrayList<>();
        PlacementPolicy.sample(nodes, node -> !node.nodeId().equals("a"), Protocol.RDP, D, 2, random, nodes.get(0))
                .forEachRemaining(candidate -> order.add(candidate.nodeId()));
        assertEquals(3, order.size(), "a preferred node the router does not take is not drawn: " + order);
        assertTrue(!order.contains("a"));
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
