package org.farmgate.router;

import java.util.concurrent.CompletionStage;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;

/**
 * Pending and active sessions per user, cluster-wide, counted atomically: a user at the limit is refused even when
 * creates race on several nodes. A session takes its place before it is placed and gives it back when it ends, is
 * deleted, or is lost with its node.
 */
public final class SessionQuota {

    private final SharedMap<String, Integer> counts;

    public SessionQuota(SharedMap<String, Integer> counts) {
        this.counts = counts;
    }

    /** @return the user's count before this call when granted, or -1 - count when the limit was reached */
    public CompletionStage<Integer> tryAcquire(String user, int limit) {
        return counts.update(user, new Acquire(limit));
    }

    public CompletionStage<Integer> release(String user) {
        return counts.update(user, new Release());
    }

    private record Acquire(int limit) implements Update<Integer, Integer> {

        @Override
        public Outcome<Integer, Integer> apply(Integer current) {
            int count = current == null ? 0 : current;
            return count >= limit ? Outcome.keep(-1 - count) : Outcome.store(count + 1, count);
        }
    }

    private record Release() implements Update<Integer, Integer> {

        @Override
        public Outcome<Integer, Integer> apply(Integer current) {
            int count = current == null ? 0 : current;
            return Outcome.store(count <= 1 ? null : count - 1, Math.max(0, count - 1));
        }
    }
}
