package org.farmgate.bench.sim;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.PriorityQueue;

/**
 * The simulation's clock and its one thread of events: an event runs at its instant, events at one instant in the
 * order they were scheduled, and the clock moves only from one event to the next. The code under test reads this as
 * its {@link Clock}, so its timers and ages follow virtual time; nothing waits for real time.
 */
final class VirtualTime extends Clock {

    private static final Instant EPOCH = Instant.parse("2026-01-01T00:00:00Z");

    private record Event(long atMicros, long order, Runnable action) implements Comparable<Event> {

        @Override
        public int compareTo(Event other) {
            int byTime = Long.compare(atMicros, other.atMicros);
            return byTime != 0 ? byTime : Long.compare(order, other.order);
        }
    }

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long nowMicros;
    private long scheduled;

    /** Runs {@code action} {@code micros} from now (0: after what is already due now). */
    void after(long micros, Runnable action) {
        queue.add(new Event(nowMicros + Math.max(0, micros), scheduled++, action));
    }

    /** Runs every event due until {@code micros}, then sets the clock there. */
    void runUntil(long micros) {
        while (!queue.isEmpty() && queue.peek().atMicros() <= micros) {
            Event next = queue.poll();
            nowMicros = next.atMicros();
            next.action().run();
        }
        nowMicros = Math.max(nowMicros, micros);
    }

    long micros() {
        return nowMicros;
    }

    @Override
    public long millis() {
        return EPOCH.toEpochMilli() + nowMicros / 1000;
    }

    @Override
    public Instant instant() {
        return EPOCH.plusNanos(nowMicros * 1000);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
