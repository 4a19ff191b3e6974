package org.farmgate.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.farmgate.router.store.LocalSharedMap;
import org.junit.jupiter.api.Test;

/** A quota place belongs to a session: retried takes and double releases cannot make the count drift. */
class SessionQuotaTest {

    private final SessionQuota quota = new SessionQuota(new LocalSharedMap<>());

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private static final SessionQuota.Limits TWO = new SessionQuota.Limits(2, 1_000);

    @Test
    void placesAreTheSessionsOwn() {
        assertEquals(new SessionQuota.Grant(true, 0, 0), join(quota.tryAcquire("ann", "s1", 10, TWO)));
        assertEquals(new SessionQuota.Grant(true, 0, 0), join(quota.tryAcquire("ann", "s1", 10, TWO)),
                "a retried take is the same place");
        assertEquals(new SessionQuota.Grant(true, 1, 10), join(quota.tryAcquire("ann", "s2", 10, TWO)));
        assertEquals(new SessionQuota.Grant(false, 2, 20), join(quota.tryAcquire("ann", "s3", 10, TWO)),
                "the limit counts sessions, not calls");
        assertTrue(join(quota.holds("ann", "s2")));
        assertFalse(join(quota.holds("bob", "s2")));

        assertTrue(join(quota.release("ann", "s1")));
        assertFalse(join(quota.release("ann", "s1")), "given back twice (node and coordinator): once");
        assertEquals(Map.of("ann", Set.of("s2")), join(quota.places()));
        assertTrue(join(quota.tryAcquire("ann", "s3", 10, TWO)).granted());
        assertEquals(2, join(quota.releaseAll("ann", Set.of("s2", "s3", "unknown"))));
        assertEquals(Map.of(), join(quota.places()), "a user without places has no entry");
    }

    @Test
    void reservedMemoryIsLimitedBesidesTheCount() {
        SessionQuota.Limits limits = new SessionQuota.Limits(50, 500);
        assertTrue(join(quota.tryAcquire("eve", "big-1", 300, limits)).granted());
        assertEquals(new SessionQuota.Grant(false, 1, 300), join(quota.tryAcquire("eve", "big-2", 300, limits)),
                "300 + 300 MB is over 500");
        assertTrue(join(quota.tryAcquire("eve", "small", 200, limits)).granted(), "exactly at the limit fits");
        assertTrue(join(quota.tryAcquire("ann", "big-2", 300, limits)).granted(), "each user has their own");
        join(quota.release("eve", "big-1"));
        assertTrue(join(quota.tryAcquire("eve", "big-2", 300, limits)).granted(), "given back, the memory is free");
    }
}
