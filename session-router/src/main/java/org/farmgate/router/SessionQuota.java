package org.farmgate.router;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;
import org.farmgate.router.store.Voucher;

/**
 * Pending and active sessions per user, cluster-wide, held as their session ids with the memory each reserves, and
 * changed atomically on the user's entry: a user at either limit (sessions, or megabytes reserved) is refused even
 * when creates race on several nodes. The memory limit is what keeps one user from reserving the cluster's budget
 * with a few large pending displays.
 *
 * <p>A place is the session's own, not a count: taking it again for the same session, or giving it back twice (a
 * retried request, an end seen by the node and by the coordinator), changes nothing, so the quota cannot drift.
 * A place whose session no node holds (its placing node died between taking it and opening the session) is found
 * by {@link #places()} against the registry, and given back by {@link #releaseAll} (see the coordinator's repair).
 */
public final class SessionQuota {

    /** The sessions that hold one of a user's places, each with the megabytes it was charged. */
    public record Places(String user, TreeMap<String, Integer> sessions) implements Serializable {

        public Places {
            sessions = new TreeMap<>(sessions);
        }
    }

    /** What one user may hold at once. */
    public record Limits(int sessions, long memoryMb) implements Serializable {

        public static final Limits NONE = new Limits(Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    /**
     * The answer to a take: whether it was granted, and what the user held before it; with the entry owner's voucher
     * for the place, where the owner vouches (a sealed map), which the session's node believes without reading the
     * entry ({@link #holds}).
     */
    public record Grant(boolean granted, int sessions, long reservedMb, Voucher voucher) implements Serializable {

        public Grant(boolean granted, int sessions, long reservedMb) {
            this(granted, sessions, reservedMb, null);
        }
    }

    private final SharedMap<String, Places> places;

    public SessionQuota(SharedMap<String, Places> places) {
        this.places = places;
    }

    /** Takes one of {@code user}'s places for {@code sessionId}, charging it {@code memoryMb}. */
    public CompletionStage<Grant> tryAcquire(String user, String sessionId, int memoryMb, Limits limits) {
        return places.update(user, new Acquire(user, sessionId, memoryMb, limits));
    }

    /** Gives the session's place back; false when it held none. */
    public CompletionStage<Boolean> release(String user, String sessionId) {
        return places.update(user, new Release(Set.of(sessionId)))
                .thenApply(released -> released != null && released > 0);
    }

    /** Gives back every place of {@code sessionIds} the user still has; the count given back. */
    public CompletionStage<Integer> releaseAll(String user, Set<String> sessionIds) {
        return places.update(user, new Release(Set.copyOf(sessionIds)));
    }

    /**
     * Writes the user's places as {@code held} says, whatever the entry holds: how an entry a member on the cluster
     * network put back from an old copy, or deleted, is replaced by the truth (the sessions the directory has for the
     * user). A create racing with it may lose its place, which the next create's refusal or the repair shows.
     */
    public CompletionStage<Integer> rebuild(String user, Map<String, Integer> held) {
        return places.update(user, new Rebuild(user, new TreeMap<>(held)));
    }

    /** Whether the session holds one of the user's places, read from the entry. */
    public CompletionStage<Boolean> holds(String user, String sessionId) {
        return holds(user, sessionId, null);
    }

    /**
     * Whether the session holds one of the user's places: what the owner checks before it opens a session. A
     * voucher from the grant is believed without a read (the create's one round trip fewer); without one, or with
     * one that is not believed, the entry is read.
     */
    public CompletionStage<Boolean> holds(String user, String sessionId, Voucher voucher) {
        if (places.vouched(user, sessionId, voucher)) {
            return CompletableFuture.completedFuture(true);
        }
        return places.get(user).thenApply(held -> held != null && held.sessions().containsKey(sessionId));
    }

    /** Every user's places. */
    public CompletionStage<Map<String, Set<String>>> places() {
        return places.query(Query.all()).thenApply(SessionQuota::byUser);
    }

    private static Map<String, Set<String>> byUser(List<Places> entries) {
        Map<String, Set<String>> out = new HashMap<>();
        entries.stream().filter(entry -> !entry.sessions().isEmpty())
                .forEach(entry -> out.put(entry.user(), Set.copyOf(entry.sessions().keySet())));
        return out;
    }

    private record Acquire(String user, String sessionId, int memoryMb, Limits limits)
            implements Update<Places, Grant> {

        @Override
        public Outcome<Places, Grant> apply(Places current) {
            TreeMap<String, Integer> held = current == null ? new TreeMap<>() : new TreeMap<>(current.sessions());
            Integer already = held.remove(sessionId);
            int count = held.size();
            long reserved = held.values().stream().mapToLong(Integer::longValue).sum();
            if (already != null) {
                return Outcome.keep(new Grant(true, count, reserved));
            }
            if (count >= limits.sessions() || reserved + memoryMb > limits.memoryMb()) {
                return Outcome.keep(new Grant(false, count, reserved));
            }
            held.put(sessionId, memoryMb);
            return Outcome.store(new Places(user, held), new Grant(true, count, reserved));
        }

        /** A place granted is vouched for by the session's id: the statement its node checks. */
        @Override
        public Grant vouched(Grant result, Function<String, Voucher> owner) {
            return result.granted() ? new Grant(true, result.sessions(), result.reservedMb(),
                    owner.apply(sessionId)) : result;
        }
    }

    private record Release(Set<String> sessionIds) implements Update<Places, Integer> {

        @Override
        public Outcome<Places, Integer> apply(Places current) {
            if (current == null) {
                return Outcome.keep(0);
            }
            TreeMap<String, Integer> held = new TreeMap<>(current.sessions());
            int before = held.size();
            held.keySet().removeAll(sessionIds);
            if (held.size() == before) {
                return Outcome.keep(0);
            }
            // An empty entry, not none: a missing entry is what a member on the cluster network makes by deleting
            // one, and is not decided on (SealedMap's absenceGrants); an empty one is the nodes' own word.
            return Outcome.store(new Places(current.user(), held), before - held.size());
        }

        /** A place given back: an old copy holds more places, which grants less. */
        @Override
        public boolean narrows(Places before, Places after) {
            return false;
        }
    }

    private record Rebuild(String user, TreeMap<String, Integer> held) implements Update<Places, Integer> {

        @Override
        public Outcome<Places, Integer> apply(Places current) {
            return Outcome.store(new Places(user, held), held.size());
        }

        @Override
        public Outcome<Places, Integer> applyToStale(Places stale) {
            return apply(stale);
        }
    }
}
