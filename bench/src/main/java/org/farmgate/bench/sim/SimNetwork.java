package org.farmgate.bench.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The cluster's members as the simulation sees them: which are alive, which the cluster still counts as members
 * (a member that died stays one until the failure detector gives up on it), which member owns each key (Hazelcast's
 * partitions dealt out evenly), and what a call costs: one message each way and a one-way latency, nothing for a
 * call to a key the caller owns. A call to a member that died waits, as Hazelcast's invocations retry, until the
 * member is removed and the key's partition has a new owner (its backup, so the entry survives).
 */
final class SimNetwork {

    /** Hazelcast's default partition count. */
    static final int PARTITIONS = 271;
    /** A call to a key this member owns: no network, a little work. */
    private static final long LOCAL_MICROS = 20;
    /** The node's {@code FenceBus.BATCH_MILLIS}: its fences go to the peers together, every 5 ms. */
    private static final long FENCE_BATCH_MICROS = 5_000;

    private final VirtualTime time;
    private final Traffic traffic;
    private final Sizes sizes;
    private final SplittableRandom random;
    private final long latencyMicros;
    private final boolean[] alive;
    private final boolean[] member;
    private int[] owners = new int[PARTITIONS];
    private final List<Runnable> waitingForMembership = new ArrayList<>();
    private int liveMembers;
    /** Whether a node's batch of fences is waiting to go: a fence then rides along, costing bytes, no message. */
    private final boolean[] fenceBatchOpen;
    private List<Integer> memberList;

    SimNetwork(VirtualTime time, Traffic traffic, Sizes sizes, SplittableRandom random, int nodes, long latencyMicros) {
        this.time = time;
        this.traffic = traffic;
        this.sizes = sizes;
        this.random = random;
        this.latencyMicros = latencyMicros;
        this.alive = new boolean[nodes];
        this.member = new boolean[nodes];
        this.fenceBatchOpen = new boolean[nodes];
        java.util.Arrays.fill(alive, true);
        java.util.Arrays.fill(member, true);
        liveMembers = nodes;
        deal();
    }

    private void deal() {
        List<Integer> members = new ArrayList<>();
        for (int i = 0; i < member.length; i++) {
            if (member[i]) {
                members.add(i);
            }
        }
        memberList = List.copyOf(members);
        for (int p = 0; p < PARTITIONS; p++) {
            owners[p] = members.get(p % members.size());
        }
    }

    /** The members, oldest (lowest) first. */
    List<Integer> members() {
        return memberList;
    }

    boolean isMember(int node) {
        return member[node];
    }

    boolean isAlive(int node) {
        return alive[node];
    }

    int ownerOf(String key) {
        return owners[partitionOf(key)];
    }

    /**
     * As Hazelcast's, a hash that spreads keys alike in all but their last character (node-1, node-2) over unrelated
     * partitions: {@code String.hashCode} alone put such keys in neighbouring partitions, which this class deals to
     * neighbouring members, so that at 3 nodes every node owned its own registry entry and its heartbeat sent nothing.
     */
    private static int partitionOf(String key) {
        int h = key.hashCode();
        h ^= h >>> 16; // MurmurHash3's finalizer
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return Math.floorMod(h, PARTITIONS);
    }

    /**
     * The key's owner copies a write to the key's backup (the next member in the partition's replicas, as Hazelcast
     * deals them); a synchronous backup then acknowledges to the caller, which waits for it, an asynchronous one does
     * not. Nothing when the cluster has one member.
     */
    void backUp(int caller, String key, String contributor, int bytes, boolean synchronous) {
        if (memberList.size() < 2) {
            return;
        }
        int owner = ownerOf(key);
        int backup = memberList.get((memberList.indexOf(owner) + 1) % memberList.size());
        traffic.message(owner, backup, contributor, bytes);
        if (synchronous && backup != caller) {
            traffic.message(backup, caller, contributor, Sizes.ACK_BYTES);
        }
    }

    /** The process dies: it sends and answers nothing from now on, but stays a member until {@link #remove}. */
    void kill(int node) {
        alive[node] = false;
        liveMembers--;
    }

    /** The failure detector gave up on it: its partitions go to the others, and calls that waited go on. */
    void remove(int node) {
        member[node] = false;
        deal();
        List<Runnable> retry = List.copyOf(waitingForMembership);
        waitingForMembership.clear();
        retry.forEach(Runnable::run);
    }

    private long oneWay() {
        return latencyMicros + random.nextLong(Math.max(1, latencyMicros / 5));
    }

    /** A call that runs {@code atOwner} on the key's owner and brings its answer back. */
    <R> CompletableFuture<R> call(int from, String key, String contributor, Object request, Supplier<R> atOwner) {
        CompletableFuture<R> answer = new CompletableFuture<>();
        dispatch(from, key, contributor, sizes.of(request), atOwner, answer);
        return answer;
    }

    private <R> void dispatch(int from, String key, String contributor, int requestBytes, Supplier<R> atOwner,
            CompletableFuture<R> answer) {
        int owner = ownerOf(key);
        if (owner == from) {
            time.after(LOCAL_MICROS, () -> answer.complete(atOwner.get()));
            return;
        }
        traffic.message(from, owner, contributor, requestBytes);
        time.after(oneWay(), () -> {
            if (!alive[owner]) {
                waitingForMembership.add(() -> dispatch(from, key, contributor, requestBytes, atOwner, answer));
                return;
            }
            R result = atOwner.get();
            traffic.message(owner, from, contributor, sizes.of(result));
            time.after(oneWay(), () -> answer.complete(result));
        });
    }

    /**
     * A query: a request to every member, each answering with what it owns ({@code atMembers} evaluates them all at
     * one instant and says what each member's answer weighs); complete when all answered. A member that died holds
     * it until removed, as Hazelcast's query waits on its partitions.
     */
    <P> CompletableFuture<List<P>> query(int from, String contributor, Object request,
            java.util.function.Function<int[], List<P>> atMembers) {
        CompletableFuture<List<P>> answer = new CompletableFuture<>();
        dispatchQuery(from, contributor, sizes.of(request), this::members, atMembers, answer);
        return answer;
    }

    /**
     * A query run only on the partitions of {@code keys}, as Hazelcast 5.3 runs one with a partition predicate of
     * several partitions (its {@code QueryEngineImpl}): one request to each member owning any of them, with the set,
     * and its answer; a sole partition is one request to its owner.
     */
    <P> CompletableFuture<List<P>> queryNear(int from, String contributor, Object request, Set<String> keys,
            java.util.function.Function<int[], List<P>> atMembers) {
        CompletableFuture<List<P>> answer = new CompletableFuture<>();
        dispatchQuery(from, contributor, sizes.of(request), () -> keys.stream().map(SimNetwork::partitionOf)
                .map(partition -> owners[partition]).distinct().toList(), atMembers, answer);
        return answer;
    }

    /** @param askedNow the members asked, each once */
    private <P> void dispatchQuery(int from, String contributor, int requestBytes,
            Supplier<List<Integer>> askedNow, java.util.function.Function<int[], List<P>> atMembers,
            CompletableFuture<List<P>> answer) {
        List<Integer> asked = askedNow.get();
        for (int node : asked) {
            if (node != from) {
                traffic.message(from, node, contributor, requestBytes);
            }
        }
        time.after(oneWay(), () -> {
            for (int node : asked) {
                if (!alive[node] && node != from) {
                    waitingForMembership.add(() -> dispatchQuery(from, contributor, requestBytes, askedNow, atMembers,
                            answer));
                    return;
                }
            }
            int[] answerBytes = new int[alive.length];
            List<P> result = atMembers.apply(answerBytes);
            for (int node : asked) {
                if (node != from) {
                    traffic.message(node, from, contributor, 16 + answerBytes[node]);
                }
            }
            time.after(oneWay(), () -> answer.complete(result));
        });
    }

    /** One message between two members that nothing waits for here (an event bus request or its reply). */
    void send(int from, int to, String contributor, int bytes) {
        traffic.message(from, to, contributor, bytes);
    }

    /**
     * A request on the event bus and its answer: completes once both ways are travelled, with whether {@code to} was
     * alive to answer (a node's own request costs nothing).
     */
    CompletableFuture<Boolean> ask(int from, int to, String contributor, int requestBytes, int answerBytes) {
        CompletableFuture<Boolean> answered = new CompletableFuture<>();
        if (from == to) {
            answered.complete(true);
            return answered;
        }
        traffic.message(from, to, contributor, requestBytes);
        time.after(oneWay(), () -> {
            if (!alive[to]) {
                answered.complete(false);
                return;
            }
            traffic.message(to, from, contributor, answerBytes);
            time.after(oneWay(), () -> answered.complete(true));
        });
        return answered;
    }

    /**
     * A fence on the event bus, as {@code FenceBus} sends it: the first of a batch opens it and costs a message to
     * every other member when the batch goes; fences written before then ride in the same message.
     */
    void fence(int from, String contributor) {
        int receivers = liveMembers - (member[from] ? 1 : 0);
        if (fenceBatchOpen[from]) {
            traffic.broadcastBytes(from, receivers, contributor, Sizes.FENCE_IN_BATCH_BYTES);
            return;
        }
        fenceBatchOpen[from] = true;
        time.after(FENCE_BATCH_MICROS, () -> fenceBatchOpen[from] = false);
        traffic.broadcast(from, receivers, contributor, Sizes.FENCE_BYTES);
    }
}
