package org.farmgate.router;

import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletionStage;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;

/**
 * Pending and active sessions per user, cluster-wide, held as the set of their session ids and changed atomically
 * on the user's entry: a user at the limit is refused even when creates race on several nodes.
 *
 * <p>A place is the session's own, not a count: taking it again for the same session, or giving it back twice (a
 * retried request, an end seen by the node and by the coordinator), changes nothing, so the quota cannot drift.
 * A place whose session no node holds (its placing node died between taking it and opening the session) is found
 * by {@link #places()} against the registry, and given back by {@link #releaseAll} (see the coordinator's repair).
 */
public final class SessionQuota {

    /** The session ids that hold one of a user's places. */
    public record Places(String user, TreeSet<String> sessionIds) implements Serializable {

        public Places {
            sessionIds = new TreeSet<>(sessionIds);
        }
    }

    private final SharedMap<String, Places> places;

    public SessionQuota(SharedMap<String, Places> places) {
        this.places = places;
    }

    /**
     * Takes one of {@code user}'s places for {@code sessionId}.
     *
     * @return the user's count before this call when granted, or -1 - count when the limit was reached
     */
    public CompletionStage<Integer> tryAcquire(String user, String sessionId, int limit) {
        return places.update(user, new Acquire(user, sessionId, limit));
    }

    /** Gives the session's place back; false when it held none. */
    public CompletionStage<Boolean> release(String user, String sessionId) {
        return places.update(user, new Release(Set.of(sessionId))).thenApply(released -> released > 0);
    }

    /** Gives back every place of {@code sessionIds} the user still has; the count given back. */
    public CompletionStage<Integer> releaseAll(String user, Set<String> sessionIds) {
        return places.update(user, new Release(Set.copyOf(sessionIds)));
    }

    /** Whether the session holds one of the user's places: what the owner checks before it opens a session. */
    public CompletionStage<Boolean> holds(String user, String sessionId) {
        return places.get(user).thenApply(held -> held != null && held.sessionIds().contains(sessionId));
    }

    /** Every user's places. */
    public CompletionStage<Map<String, Set<String>>> places() {
        return places.query(new Everyone()).thenApply(SessionQuota::byUser);
    }

    private static Map<String, Set<String>> byUser(List<Places> entries) {
        Map<String, Set<String>> out = new HashMap<>();
        entries.forEach(entry -> out.put(entry.user(), Set.copyOf(entry.sessionIds())));
        return out;
    }

    private record Acquire(String user, String sessionId, int limit) implements Update<Places, Integer> {

        @Override
        public Outcome<Places, Integer> apply(Places current) {
            TreeSet<String> ids = current == null ? new TreeSet<>() : new TreeSet<>(current.sessionIds());
            int count = ids.size();
            if (ids.contains(sessionId)) {
                return Outcome.keep(count - 1);
            }
            if (count >= limit) {
                return Outcome.keep(-1 - count);
            }
            ids.add(sessionId);
            return Outcome.store(new Places(user, ids), count);
        }
    }

    private record Release(Set<String> sessionIds) implements Update<Places, Integer> {

        @Override
        public Outcome<Places, Integer> apply(Places current) {
            if (current == null) {
                return Outcome.keep(0);
            }
            TreeSet<String> ids = new TreeSet<>(current.sessionIds());
            int before = ids.size();
            ids.removeAll(sessionIds);
            if (ids.size() == before) {
                return Outcome.keep(0);
            }
            return Outcome.store(ids.isEmpty() ? null : new Places(current.user(), ids), before - ids.size());
        }
    }

    private record Everyone() implements Query<Places, Places> {

        @Override
        public boolean matches(Places value) {
            return true;
        }

        @Override
        public Places project(Places value) {
            return value;
        }
    }
}
