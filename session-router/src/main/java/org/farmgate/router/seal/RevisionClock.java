package org.farmgate.router.seal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Revisions for sealed records: a hybrid logical clock, the wall clock's milliseconds shifted left with a counter
 * below them, that never goes back and moves past every revision this JVM has seen. A record written after another
 * on any node gets a higher revision as long as the writer heard of the other (a fence on the event bus, or the
 * record itself read), and otherwise as long as the two hosts' clocks agree within the time between the writes.
 *
 * <p>A revision read from a peer that lies more than a minute in this host's future is not followed: one bad clock
 * must not drag every revision after it.
 */
public final class RevisionClock {

    static final int COUNTER_BITS = 12;
    private static final long FOLLOWED_AHEAD_MILLIS = 60_000;

    /** The clock every sealed map of this JVM revises with, owners' updates included. */

    private final LongSupplier millis;
    private final AtomicLong last = new AtomicLong();

    RevisionClock(LongSupplier millis) {
        this.millis = millis;
    }

    /** A revision above {@code after} and above every revision issued or followed here. */
    public long next(long after) {
        long now = millis.getAsLong() << COUNTER_BITS;
        return last.updateAndGet(previous -> Math.max(Math.max(previous, after) + 1, now));
    }

    /** Moves past {@code revision}, unless it is from too far in the future; false then. */
    public boolean follow(long revision) {
        if (!plausible(revision)) {
            return false;
        }
        if (revision > last.get()) { // most revisions read are behind: no write to the shared line then
            last.accumulateAndGet(revision, Math::max);
        }
        return true;
    }

    /** Whether {@code revision} was issued by a clock no more than a minute ahead of this one. */
    public boolean plausible(long revision) {
        return (revision >>> COUNTER_BITS) <= millis.getAsLong() + FOLLOWED_AHEAD_MILLIS;
    }

    /** The wall-clock milliseconds a revision was issued at. */
    public static long millisOf(long revision) {
        return revision >>> COUNTER_BITS;
    }
}
