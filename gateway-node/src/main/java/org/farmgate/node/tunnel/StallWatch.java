package org.farmgate.node.tunnel;

import io.vertx.core.Vertx;

/**
 * A peer that stopped reading: back-pressure holds what would go to it (its source is paused, so memory stays
 * bounded), and this watch ends the wait once it has lasted too long, so that a client that never reads cannot
 * keep a session, a guacd connection and their buffers for ever. Armed when the tunnel stops feeding the peer,
 * disarmed when the peer drains; used on one event loop only.
 */
final class StallWatch {

    private final Vertx vertx;
    private final long limitMs;
    private final Runnable onStall;
    private long timer = -1;

    StallWatch(Vertx vertx, long limitMs, Runnable onStall) {
        this.vertx = vertx;
        this.limitMs = limitMs;
        this.onStall = onStall;
    }

    /** The peer's queue is full: start counting, unless already counting. */
    void held() {
        if (timer < 0) {
            timer = vertx.setTimer(limitMs, id -> {
                timer = -1;
                onStall.run();
            });
        }
    }

    /** The peer read again. */
    void released() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }
}
