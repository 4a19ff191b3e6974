package org.farmgate.router.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Revisions never go back, pass what they are shown, and do not follow a clock far ahead. */
class RevisionClockTest {

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final RevisionClock clock = new RevisionClock(now::get);

    @Test
    void revisionsRiseWithinAMillisecondAndWhenTheWallClockStepsBack() {
        long first = clock.next(0);
        long second = clock.next(0);
        assertEquals(first + 1, second);
        assertEquals(1_000_000, RevisionClock.millisOf(first));
        now.set(999_000); // an NTP step back
        assertTrue(clock.next(0) > second);
        now.set(1_000_010);
        assertEquals(1_000_010L << RevisionClock.COUNTER_BITS, clock.next(0), "the wall clock leads again");
    }

    @Test
    void aRevisionFollowedOrGivenAsFloorIsPassed() {
        long peer = (now.get() + 5_000) << RevisionClock.COUNTER_BITS; // a peer's clock 5 s ahead
        assertTrue(clock.follow(peer));
        assertTrue(clock.next(0) > peer);
        assertTrue(clock.next(peer + 10) > peer + 10);
    }

    @Test
    void aRevisionFromMoreThanAMinuteAheadIsNotFollowed() {
        long far = (now.get() + 3_600_000) << RevisionClock.COUNTER_BITS;
        assertFalse(clock.follow(far));
        assertEquals(now.get(), RevisionClock.millisOf(clock.next(0)));
        Fences fences = new Fences(clock, now::get);
        assertFalse(fences.learn(new Fences.Fence("m", "k", far, false, 0)), "nor believed as a fence");
        assertFalse(fences.isReplay("m", "k", clock.next(0)));
    }

    /** A read sent between two writes is judged by the first: the second was not the owner's yet when it read. */
    @Test
    void aReadIsJudgedByWhatWasHeardBeforeItWasSent() {
        Fences fences = new Fences(clock, now::get);
        long copy = clock.next(0);
        long first = clock.next(0);
        long between = clock.next(0);
        long second = clock.next(0);
        fences.learn(new Fences.Fence("m", "k", first, true, 0));
        long asked = fences.mark();
        fences.learn(new Fences.Fence("m", "k", second, true, 0)); // heard while the read was on its way
        assertTrue(fences.isReplay("m", "k", copy, asked), "older than a write heard before the read was sent");
        assertFalse(fences.isReplay("m", "k", between, asked), "the latest when it was read");
        assertTrue(fences.isReplay("m", "k", between, fences.mark()), "a read sent now knows the second write");
    }

    @Test
    void fencesKeepTheLatestWriteAndExpireWithTheirRecords() {
        Fences fences = new Fences(clock, now::get);
        long older = clock.next(0);
        long newer = clock.next(0);
        fences.learn(new Fences.Fence("m", "k", newer, true, 0));
        fences.learn(new Fences.Fence("m", "k", older, false, 0)); // heard late, out of order
        assertEquals(newer, fences.floor("m", "k"));
        assertTrue(fences.isReplay("m", "k", older));
        assertFalse(fences.isReplay("m", "k", newer));
        assertFalse(fences.isReplay("m", "other", older));
        fences.learn(new Fences.Fence("t", "k", newer, true, now.get() + 1000));
        now.addAndGet(1001);
        assertFalse(fences.isReplay("t", "k", older), "a ticket's fence goes when no copy of it can be alive");
        assertEquals(1, fences.snapshot().size());
    }
}
