package org.farmgate.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fences go as {@code FenceBus} sends them: what a node fences within 5 ms is one message to each peer; a narrowed
 * query goes as Hazelcast 5.3 sends it: one request to each member owning any of its keys, and one answer from each.
 */
class SimNetworkTest {

    private static final int NODES = 4;

    /** Each case: when node 0 fences (µs), and how many messages each peer then hears from it. */
    static Stream<Arguments> fenceTimes() {
        return Stream.of(
                Arguments.of(new long[] {0}, 1),
                Arguments.of(new long[] {0, 0, 0}, 1),
                Arguments.of(new long[] {0, 4_999}, 1),
                Arguments.of(new long[] {0, 5_000}, 2),
                Arguments.of(new long[] {0, 3_000, 6_000}, 2),
                Arguments.of(new long[] {0, 10_000, 20_000}, 3));
    }

    @ParameterizedTest
    @MethodSource("fenceTimes")
    void fencesWithinABatchWindowShareOneMessage(long[] at, int messagesPerPeer) {
        VirtualTime time = new VirtualTime();
        Traffic traffic = new Traffic(NODES);
        traffic.start();
        SimNetwork network = new SimNetwork(time, traffic, SizesOfRealRecords.measure(), new SplittableRandom(1),
                NODES, 250);
        for (long micros : at) {
            time.after(micros - time.micros(), () -> network.fence(0, "nodes.fence"));
            time.runUntil(micros);
        }
        Traffic.Count fences = traffic.byContributor().get("nodes.fence");
        int peers = NODES - 1;
        assertEquals((long) messagesPerPeer * peers, fences.messages);
        long riders = at.length - messagesPerPeer;
        assertEquals(peers * (messagesPerPeer * (long) Sizes.FENCE_BYTES + riders * Sizes.FENCE_IN_BATCH_BYTES),
                fences.bytes, "every fence's bytes, riding or not");
    }

    /** Each case: how many nodes, and how many keys the query names. */
    static Stream<Arguments> narrowedQueries() {
        return Stream.of(Arguments.of(4, 1), Arguments.of(4, 16), Arguments.of(20, 16), Arguments.of(300, 16),
                Arguments.of(300, 200));
    }

    @ParameterizedTest
    @MethodSource("narrowedQueries")
    void aNarrowedQueryAsksEachOwningMemberOnce(int nodes, int keys) {
        VirtualTime time = new VirtualTime();
        Traffic traffic = new Traffic(nodes);
        traffic.start();
        SimNetwork network = new SimNetwork(time, traffic, SizesOfRealRecords.measure(), new SplittableRandom(1),
                nodes, 250);
        Set<String> near = IntStream.range(0, keys).mapToObj(k -> "node-" + k).collect(Collectors.toSet());
        network.queryNear(0, "nodes.SummariesOf", "query", near, answerBytes -> List.of());
        time.runUntil(1_000_000);
        long owners = near.stream().map(network::ownerOf).distinct().filter(owner -> owner != 0).count();
        Traffic.Count asked = traffic.byContributor().get("nodes.SummariesOf");
        assertEquals(2 * owners, asked == null ? 0 : asked.messages, "a request and an answer per other owner");
    }
}
