package org.farmgate.router.seal;

import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The signed updates this member applied within the last {@link #WINDOW}, by their proof: an order is applied the
 * first time it arrives and within the window of its revision's clock, never again. An order sent again after the
 * entry's owner changed (a migration) within the window is the gap left: the new owner never saw the first.
 */
final class AppliedOrders {

    /** Far longer than an update waits in a partition's queue; far shorter than a drain or a place lasts. */
    static final Duration WINDOW = Duration.ofSeconds(30);
    private static final int SWEEP_EVERY = 1024;

    private final LongSupplier millis;
    private final Map<String, Long> applied = new ConcurrentHashMap<>();
    private final AtomicInteger sinceSweep = new AtomicInteger();

    AppliedOrders(LongSupplier millis) {
        this.millis = millis;
    }

    /** Whether the order is recent and seen here for the first time; remembers it. */
    boolean firstTime(Sealed order) {
        long now = millis.getAsLong();
        long signedAt = RevisionClock.millisOf(order.revision());
        if (signedAt < now - WINDOW.toMillis() || signedAt > now + WINDOW.toMillis()) {
            return false;
        }
        if (sinceSweep.incrementAndGet() >= SWEEP_EVERY) {
            sinceSweep.set(0);
            applied.values().removeIf(until -> until < now);
        }
        return applied.putIfAbsent(order.key() + '\0' + Base64.getEncoder().encodeToString(order.mac()),
                signedAt + WINDOW.toMillis()) == null;
    }
}
