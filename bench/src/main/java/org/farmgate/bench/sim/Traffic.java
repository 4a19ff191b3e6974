package org.farmgate.bench.sim;

import java.util.Map;
import java.util.TreeMap;

/**
 * Every control-plane message the simulation sends, by what sent it (the update, query or read's class, a fence, a
 * modelled Hazelcast heartbeat) and by node: what a node sends and receives per second, and who contributes it.
 */
final class Traffic {

    /** Messages and bytes of one contributor. */
    static final class Count {
        long messages;
        long bytes;
    }

    private final Map<String, Count> byContributor = new TreeMap<>();
    private final long[] sentMessages;
    private final long[] receivedMessages;
    private final long[] sentBytes;
    private final long[] receivedBytes;
    /** Broadcasts are counted once, not per receiver: a node received all of them but its own. */
    private long broadcasts;
    private long broadcastBytes;
    private final long[] ownBroadcasts;
    private final long[] ownBroadcastBytes;
    private boolean counting;

    Traffic(int nodes) {
        sentMessages = new long[nodes];
        receivedMessages = new long[nodes];
        sentBytes = new long[nodes];
        receivedBytes = new long[nodes];
        ownBroadcasts = new long[nodes];
        ownBroadcastBytes = new long[nodes];
    }

    /** From here on messages count: what a warm-up sent is left out. */
    void start() {
        counting = true;
    }

    void message(int from, int to, String contributor, long bytes) {
        if (sent(from, contributor, bytes, 1, true)) {
            receivedMessages[to]++;
            receivedBytes[to] += bytes;
        }
    }

    /**
     * Counts {@code bytes} sent to each of {@code count} receivers, as messages of their own or riding in messages
     * already counted; whether they count at all.
     */
    private boolean sent(int from, String contributor, long bytes, long count, boolean messages) {
        if (!counting || count == 0) {
            return false;
        }
        Count c = byContributor.computeIfAbsent(contributor, k -> new Count());
        if (messages) {
            c.messages += count;
            sentMessages[from] += count;
        }
        c.bytes += bytes * count;
        sentBytes[from] += bytes * count;
        return true;
    }

    /**
     * One message from {@code from} to each of {@code receivers} others (a fence on the event bus). Every node is
     * taken to receive every broadcast but its own, a node that died included: the busiest node is read before any
     * dies.
     */
    void broadcast(int from, int receivers, String contributor, long bytes) {
        if (sent(from, contributor, bytes, receivers, true)) {
            broadcasts++;
            ownBroadcasts[from]++;
            sizedBroadcast(from, bytes);
        }
    }

    /** Bytes added to a broadcast already counted (a fence in a batch that goes anyway): no message of its own. */
    void broadcastBytes(int from, int receivers, String contributor, long bytes) {
        if (sent(from, contributor, bytes, receivers, false)) {
            sizedBroadcast(from, bytes);
        }
    }

    private void sizedBroadcast(int from, long bytes) {
        broadcastBytes += bytes;
        ownBroadcastBytes[from] += bytes;
    }

    /** A copy of the counts by contributor as they are now: the traffic goes on counting after. */
    Map<String, Count> byContributor() {
        Map<String, Count> copy = new TreeMap<>();
        byContributor.forEach((name, count) -> {
            Count frozen = new Count();
            frozen.messages = count.messages;
            frozen.bytes = count.bytes;
            copy.put(name, frozen);
        });
        return copy;
    }

    /** Messages a node sent and received, summed over nodes. */
    long totalMessages() {
        long total = 0;
        for (int i = 0; i < sentMessages.length; i++) {
            total += sentMessages[i] + received(i);
        }
        return total;
    }

    long totalBytes() {
        long total = 0;
        for (int i = 0; i < sentBytes.length; i++) {
            total += sentBytes[i] + receivedBytes[i] + broadcastBytes - ownBroadcastBytes[i];
        }
        return total;
    }

    private long received(int node) {
        return receivedMessages[node] + broadcasts - ownBroadcasts[node];
    }

    /** The busiest node's messages, sent and received. */
    long mostMessages() {
        long most = 0;
        for (int i = 0; i < sentMessages.length; i++) {
            most = Math.max(most, sentMessages[i] + received(i));
        }
        return most;
    }
}
