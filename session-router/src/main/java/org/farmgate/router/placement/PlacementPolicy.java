package org.farmgate.router.placement;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;

/**
 * Where a new session should go, as a pure function of the nodes' loads: every node that can take it, best first.
 * Best is the most memory left after charging the session at that node's own cost model; ties go to the node with
 * fewer sessions, then to the smaller id so that the order is total and every node computes the same one.
 * Draining and unhealthy nodes, and nodes at their session cap, are not candidates.
 *
 * <p>{@link #sample} is the power of d choices (Mitzenmacher, "How useful is old information?", 2000): with loads
 * read up to a heartbeat ago, every router sending to the one best node herds them onto it until their views
 * refresh; the best of d nodes drawn at random spreads them and stays close to the best.
 *
 * <p>Both may prefer one node, the one the request came to: it goes first when it is {@linkplain #nearlyBest
 * nearly the best} (at most {@value #PREFERRED_WITHIN_SESSIONS} sessions behind it), and it is always one of the d
 * drawn. A session placed where its create arrived is opened without a hop to another node, and so is its delete
 * when the client comes back to the same node. Under a balancer that spreads requests evenly the receiving node is a
 * uniform draw itself, so "it and d - 1 others at random" is a uniform draw of d, and the balance of d choices is
 * unchanged; under one that sends everything to one node, that node is still compared with another each time and
 * takes the session only when it is nearly the emptier. Routers whose snapshots are equally stale each prefer a
 * different node, which herds them less than "the best" does.
 */
public final class PlacementPolicy {

    /** A node that can take the session, and what taking it would leave. */
    public record Candidate(String nodeId, int chargeMb, long freeAfterMb, int sessions) {
    }

    /**
     * How far behind the best the preferred node may be, in sessions of the kind being placed. In the simulation
     * (bench/RESULTS.md) one kept 59 % of a 3-node cluster's sessions where they arrived (51 % without preferring),
     * four 75 % with the fullest node as full and the spread as narrow; eight kept more but let the fullest node of a
     * 100-node cluster rise.
     */
    static final int PREFERRED_WITHIN_SESSIONS = 4;

    private static final Comparator<Candidate> BEST_FIRST = Comparator
            .comparingLong(Candidate::freeAfterMb).reversed()
            .thenComparingInt(Candidate::sessions)
            .thenComparing(Candidate::nodeId);

    private PlacementPolicy() {
    }

    public static List<Candidate> rank(Collection<NodeLoad> nodes, Protocol protocol, DisplaySize display) {
        return rank(nodes, protocol, display, null);
    }

    /** Every node that can take it, best first, {@code preferred} first when it is nearly the best (null: none). */
    public static List<Candidate> rank(Collection<NodeLoad> nodes, Protocol protocol, DisplaySize display,
            String preferred) {
        List<Candidate> candidates = new ArrayList<>(nodes.size());
        for (NodeLoad node : nodes) {
            Candidate candidate = candidate(node, protocol, display);
            if (candidate != null) {
                candidates.add(candidate);
            }
        }
        candidates.sort(BEST_FIRST);
        preferFirst(candidates, preferred);
        return candidates;
    }

    /**
     * Whether the session taken by {@code candidate} would leave it at most {@value #PREFERRED_WITHIN_SESSIONS} such
     * sessions emptier than the best would be left: a node preferred only while this holds takes a session only
     * while it is at most that many behind the best, whatever share of the requests it receives.
     */
    static boolean nearlyBest(Candidate candidate, Candidate best) {
        long slack = (long) PREFERRED_WITHIN_SESSIONS * candidate.chargeMb();
        return candidate.freeAfterMb() >= best.freeAfterMb() - slack;
    }

    /** Moves the preferred candidate to the front of the ranked ones when it is nearly the best. */
    private static void preferFirst(List<Candidate> ranked, String preferred) {
        if (preferred == null || ranked.size() < 2 || ranked.get(0).nodeId().equals(preferred)) {
            return;
        }
        for (int i = 1; i < ranked.size(); i++) {
            Candidate candidate = ranked.get(i);
            if (candidate.nodeId().equals(preferred)) {
                if (nearlyBest(candidate, ranked.get(0))) {
                    ranked.remove(i);
                    ranked.add(0, candidate);
                }
                return;
            }
        }
    }

    /**
     * The best of {@code choices} candidates drawn at random first, best first among them; the other candidates
     * after, best first, for when the drawn ones refuse (the reservation re-checks on the entry itself).
     *
     * <p>Lazy, so that a placement costs the same whatever the cluster's size: the draw walks a random permutation of
     * {@code nodes} until it has {@code choices} candidates (the first d that fit in a uniform order are a uniform d
     * of those that fit), judging only the nodes it meets, and the rest is ranked only if every drawn one refused.
     *
     * @param nodes the nodes, a null element or one {@code eligible} refuses being no candidate
     */
    public static Iterator<Candidate> sample(List<NodeLoad> nodes, Predicate<NodeLoad> eligible, Protocol protocol,
            DisplaySize display, int choices, RandomGenerator random) {
        return sample(nodes, eligible, protocol, display, choices, random, null);
    }

    /**
     * As above, {@code preferred} (one of {@code nodes}, or null) being one of the d when it can take the session, the
     * others drawn from the rest, and going first when it is nearly the best of them.
     */
    public static Iterator<Candidate> sample(List<NodeLoad> nodes, Predicate<NodeLoad> eligible, Protocol protocol,
            DisplaySize display, int choices, RandomGenerator random, NodeLoad preferred) {
        List<Candidate> drawn = new ArrayList<>(choices);
        Set<String> drawnIds = new HashSet<>();
        String preferredId = null;
        if (preferred != null && choices > 0 && eligible.test(preferred)) {
            Candidate own = candidate(preferred, protocol, display);
            if (own != null) {
                preferredId = own.nodeId();
                drawn.add(own);
                drawnIds.add(preferredId);
            }
        }
        // the permutation's moved positions only, so that a draw allocates nothing in proportion to the cluster
        Map<Integer, Integer> moved = new HashMap<>();
        int size = nodes.size();
        for (int i = 0; i < size && drawn.size() < choices; i++) {
            int j = i + random.nextInt(size - i);
            int picked = moved.getOrDefault(j, j);
            moved.put(j, moved.getOrDefault(i, i));
            NodeLoad node = nodes.get(picked);
            Candidate candidate = node != null && !drawnIds.contains(node.nodeId()) && eligible.test(node)
                    ? candidate(node, protocol, display) : null;
            if (candidate != null) {
                drawn.add(candidate);
                drawnIds.add(candidate.nodeId());
            }
        }
        drawn.sort(BEST_FIRST);
        preferFirst(drawn, preferredId);
        return new Iterator<>() {
            private Iterator<Candidate> current = drawn.iterator();
            private boolean restRanked;

            @Override
            public boolean hasNext() {
                if (!current.hasNext() && !restRanked) {
                    restRanked = true;
                    List<NodeLoad> rest = new ArrayList<>(nodes.size());
                    for (NodeLoad node : nodes) {
                        if (node != null && !drawnIds.contains(node.nodeId()) && eligible.test(node)) {
                            rest.add(node);
                        }
                    }
                    current = rank(rest, protocol, display).iterator();
                }
                return current.hasNext();
            }

            @Override
            public Candidate next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return current.next();
            }
        };
    }

    /** The node as a candidate for the session, or null when it cannot take it. */
    private static Candidate candidate(NodeLoad node, Protocol protocol, DisplaySize display) {
        if (!node.fits(protocol, display)) {
            return null;
        }
        int charge = node.chargeMb(protocol, display);
        return new Candidate(node.nodeId(), charge, node.freeMb() - charge, node.reservations().sessionCount());
    }
}
