package org.farmgate.router.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.time.Instant;
import org.farmgate.testkit.time.MutableClock;
import org.junit.jupiter.api.Test;

/** A node alone keeps its maps here: what an update gives a time to live is gone after it, from memory too. */
class LocalSharedMapTest {

    private record StoreFor(String value, Duration ttl) implements Update<String, Boolean> {
        @Override
        public Outcome<String, Boolean> apply(String current) {
            return Outcome.storeFor(value, ttl, true);
        }
    }

    @Test
    void entriesAnUpdateGaveATimeToLiveAreSweptNotOnlyHidden() {
        MutableClock clock = new MutableClock(Instant.parse("2026-12-02T10:00:00Z"));
        LocalSharedMap<String, String> map = new LocalSharedMap<>(clock);
        for (int i = 0; i < 100; i++) {
            map.update("k" + i, new StoreFor("tombstone", Duration.ofMinutes(2)));
        }
        assertEquals(100, map.held());
        clock.advance(Duration.ofMinutes(3));
        assertNull(map.get("k1").toCompletableFuture().join());
        map.update("other", new StoreFor("v", Duration.ofMinutes(2)));
        assertEquals(1, map.held(), "expired entries stay in memory on a node alone");
    }
}
