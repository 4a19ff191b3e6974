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

    @Test
    void placesAreTheSessionsOwn() {
        assertEquals(0, join(quota.tryAcquire("ann", "s1", 2)));
        assertEquals(0, join(quota.tryAcquire("ann", "s1", 2)), "a retried take is the same place");
        assertEquals(1, join(quota.tryAcquire("ann", "s2", 2)));
        assertEquals(-3, join(quota.tryAcquire("ann", "s3", 2)), "the limit counts sessions, not calls");
        assertTrue(join(quota.holds("ann", "s2")));
        assertFalse(join(quota.holds("bob", "s2")));

        assertTrue(join(quota.release("ann", "s1")));
        assertFalse(join(quota.release("ann", "s1")), "given back twice (node and coordinator): once");
        assertEquals(Map.of("ann", Set.of("s2")), join(quota.places()));
        assertEquals(1, join(quota.tryAcquire("ann", "s3", 2)));
        assertEquals(2, join(quota.releaseAll("ann", Set.of("s2", "s3", "unknown"))));
        assertEquals(Map.of(), join(quota.places()), "a user without places has no entry");
    }
}
