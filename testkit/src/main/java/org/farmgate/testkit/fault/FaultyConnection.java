package org.farmgate.testkit.fault;

import io.vertx.core.Vertx;
import io.vertx.core.net.NetSocket;

/** A client's connection and the proxy's to the target, joined by two delayed pipes; all on one event loop. */
final class FaultyConnection {

    private final Vertx vertx;
    private final NetSocket client;
    private final NetSocket target;
    private final Faults faults;
    private final FaultProxy.Counters counters;
    private final DelayedPipe up;
    private final DelayedPipe down;
    private long passed;
    private long cutTimer = -1;
    private boolean clientClosed;
    private boolean targetClosed;
    private boolean cutDone;

    private Runnable onFinished = () -> { };

    FaultyConnection(Vertx vertx, NetSocket client, NetSocket target, Faults faults, FaultProxy.Counters counters) {
        this.vertx = vertx;
        this.client = client;
        this.target = target;
        this.faults = faults;
        this.counters = counters;
        this.up = new DelayedPipe(vertx, client, target, faults, this);
        this.down = new DelayedPipe(vertx, target, client, faults, this);
    }

    void start(Runnable whenFinished) {
        this.onFinished = whenFinished;
        client.closeHandler(v -> {
            clientClosed = true;
            down.cancel();
            up.endWhenDrained();
            finished();
        });
        target.closeHandler(v -> {
            targetClosed = true;
            up.cancel();
            down.endWhenDrained();
            finished();
        });
        if (!faults.closeAfter().isZero()) {
            cutTimer = vertx.setTimer(faults.closeAfter().toMillis(), id -> {
                cutTimer = -1;
                cut();
            });
        }
        up.start();
        down.start();
    }

    /** How many of {@code bytes} may still pass before the byte budget is spent. */
    int allow(int bytes) {
        int allowed = faults.closeAfterBytes() == 0 ? bytes
                : (int) Math.max(0, Math.min(bytes, faults.closeAfterBytes() - passed));
        passed += allowed;
        counters.bytes.add(allowed);
        return allowed;
    }

    /** Ends both sides now, whatever is still held: the fault, not a goodbye. */
    void cut() {
        if (clientClosed && targetClosed || cutDone) {
            return;
        }
        cutDone = true;
        counters.cut.increment();
        up.cancel();
        down.cancel();
        client.close();
        target.close();
    }

    private void finished() {
        if (clientClosed && targetClosed) {
            onFinished.run();
            if (cutTimer != -1) {
                vertx.cancelTimer(cutTimer);
                cutTimer = -1;
            }
            counters.open.decrement();
        }
    }
}
