package org.farmgate.testkit.fault;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.util.ArrayDeque;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One direction of a proxied connection. Each chunk gets a due time (pacing, latency, jitter, stalls) and leaves in
 * order when it is due. Back-pressure as in Vert.x's {@code PipeImpl}: the reader is paused while too much is held
 * here or the writer's queue is full, and resumed when both have drained, so a slow link never means an unbounded
 * buffer.
 */
final class DelayedPipe {

    private static final int HIGH_WATER = 1 << 20;
    private static final int LOW_WATER = 256 << 10;

    private record Chunk(long due, Buffer data) {
    }

    private final Vertx vertx;
    private final NetSocket from;
    private final NetSocket to;
    private final Faults faults;
    private final FaultyConnection connection;
    private final long opened = System.nanoTime();
    private final ArrayDeque<Chunk> queue = new ArrayDeque<>();
    private long held;
    private long lastSent;
    private long lastDue;
    private long timer = -1;
    private boolean readerPaused;
    private boolean ended;
    private boolean cancelled;

    DelayedPipe(Vertx vertx, NetSocket from, NetSocket to, Faults faults, FaultyConnection connection) {
        this.vertx = vertx;
        this.from = from;
        this.to = to;
        this.faults = faults;
        this.connection = connection;
        this.lastSent = opened;
    }

    void start() {
        from.handler(this::received);
        from.resume();
    }

    private void received(Buffer data) {
        if (cancelled) {
            return; // the other side is gone: nowhere to deliver
        }
        long now = System.nanoTime();
        long leaves = now;
        if (faults.bytesPerSecond() > 0) {
            // The link sends one chunk after the other at its rate; a chunk arrives a latency after it left.
            leaves = Math.max(now, lastSent) + data.length() * 1_000_000_000L / faults.bytesPerSecond();
            lastSent = leaves;
        }
        long due = leaves + faults.latency().toNanos() + jitter();
        due = Math.max(afterStall(due), lastDue);
        lastDue = due;
        queue.add(new Chunk(due, data));
        held += data.length();
        if (held > HIGH_WATER && !readerPaused) {
            readerPaused = true;
            from.pause();
        }
        schedule();
    }

    private long jitter() {
        long max = faults.jitter().toNanos();
        return max == 0 ? 0 : ThreadLocalRandom.current().nextLong(max + 1);
    }

    /** Stalls close every period: nothing falling in {@code [k * every - length, k * every)} leaves before its end. */
    private long afterStall(long due) {
        long every = faults.stallEvery().toNanos();
        if (every == 0) {
            return due;
        }
        long phase = (due - opened) % every;
        long stallStarts = every - faults.stallFor().toNanos();
        return phase >= stallStarts ? due + (every - phase) : due;
    }

    private void schedule() {
        if (timer != -1 || queue.isEmpty()) {
            return;
        }
        long wait = queue.peek().due() - System.nanoTime();
        if (wait <= 500_000) {
            flush();
        } else {
            timer = vertx.setTimer(Math.max(1, (wait + 999_999) / 1_000_000), id -> {
                timer = -1;
                flush();
            });
        }
    }

    private void flush() {
        long now = System.nanoTime();
        while (!queue.isEmpty() && queue.peek().due() - now <= 500_000) {
            if (to.writeQueueFull()) {
                to.drainHandler(v -> flush());
                return;
            }
            Chunk chunk = queue.poll();
            held -= chunk.data().length();
            int allowed = connection.allow(chunk.data().length());
            if (allowed > 0) {
                to.write(allowed == chunk.data().length() ? chunk.data() : chunk.data().slice(0, allowed));
            }
            if (allowed < chunk.data().length()) {
                connection.cut();
                return;
            }
        }
        if (readerPaused && held < LOW_WATER) {
            readerPaused = false;
            from.resume();
        }
        closeWhenDrained();
        schedule();
    }

    /** The reading side has gone: what is held still leaves when due, then the writing side is ended. */
    void endWhenDrained() {
        ended = true;
        closeWhenDrained();
    }

    private void closeWhenDrained() {
        if (ended && queue.isEmpty()) {
            to.end();
        }
    }

    void cancel() {
        cancelled = true;
        if (timer != -1) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        queue.clear();
    }
}
