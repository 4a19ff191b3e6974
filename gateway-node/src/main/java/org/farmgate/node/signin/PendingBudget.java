package org.farmgate.node.signin;

import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many sign-ins this node may start within one pending lifetime. Starting one needs no credential and writes a
 * cluster record that lives that long, so without a bound anyone could fill the cluster's memory by asking for the
 * sign-in page in a loop; with it, the records this node can have made are at most {@code max} at any time. A place
 * comes back when the record it stands for has expired (its callback may land on another node, which cannot tell
 * this one).
 */
final class PendingBudget {

    private final Vertx vertx;
    private final int max;
    private final Duration lifetime;
    private final AtomicInteger taken = new AtomicInteger();

    PendingBudget(Vertx vertx, int max, Duration lifetime) {
        this.vertx = vertx;
        this.max = max;
        this.lifetime = lifetime;
    }

    /** Takes a place for one sign-in; false when every place is taken. */
    boolean take() {
        if (taken.incrementAndGet() > max) {
            taken.decrementAndGet();
            return false;
        }
        vertx.setTimer(lifetime.toMillis(), id -> taken.decrementAndGet());
        return true;
    }

    int max() {
        return max;
    }
}
