package org.farmgate.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.testkit.time.MutableClock;
import org.junit.jupiter.api.Test;

/**
 * The directory's order of a session's records: revisions only grow, an end is final but for the holder's truth
 * over a {@code lost} mark, and a removed record leaves a tombstone that refuses a write still on its way.
 */
class SessionDirectoryTest {

    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

    private final MutableClock clock = new MutableClock(T0);
    private final SessionDirectory directory = new SessionDirectory(new LocalSharedMap<>(clock));

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }

    private static SessionInfo pending() {
        return new SessionInfo("s1", Protocol.SSH, SessionStatus.PENDING, T0, "host", 22, "u", "ann", "tok_ann", 0,
                "node-1", 64, null, null);
    }

    @Test
    void aWriteOvertakenByALaterOneIsRefused() {
        SessionInfo opened = pending();
        SessionInfo attached = opened.attached();
        SessionInfo detached = attached.detached();
        assertEquals(List.of(1L, 2L, 3L), List.of(opened.revision(), attached.revision(), detached.revision()));
        assertTrue(join(directory.publish(opened)));
        assertTrue(join(directory.publish(detached)));
        assertFalse(join(directory.publish(attached)), "an older revision arriving late");
        assertFalse(join(directory.publish(detached)), "the same revision again changes nothing");
        assertEquals(detached, join(directory.find("s1")));
    }

    @Test
    void anEndedSessionNeverTurnsLiveAgain() {
        SessionInfo attached = pending().attached();
        SessionInfo ended = attached.ended(SessionStatus.COMPLETED, T0.plusSeconds(5), "done");
        assertTrue(join(directory.publish(ended)));
        SessionInfo laterLive = attached.detached().attached().detached(); // a higher revision, still live
        assertTrue(laterLive.revision() > ended.revision());
        assertFalse(join(directory.publish(laterLive)));
        assertEquals(SessionStatus.COMPLETED, join(directory.find("s1")).status());
    }

    @Test
    void theNodeThatHoldsASessionWritesItsTruthOverALostMark() {
        SessionInfo attached = pending().attached();
        assertTrue(join(directory.publish(attached)));
        List<SessionInfo> lost = join(directory.markLost("node-1", T0.plusSeconds(9)));
        assertEquals(1, lost.size());
        assertEquals(attached.revision() + 1, lost.get(0).revision());
        assertFalse(join(directory.publish(attached.detached())), "a late ordinary write makes no ghost of it");
        assertTrue(join(directory.reassert(attached)), "the holder, back from a split, still runs it");
        assertEquals(attached, join(directory.find("s1")));
        assertFalse(join(directory.publish(attached)), "past the holder's truth, revisions rule again");
        assertTrue(join(directory.publish(attached.detached())));
        assertFalse(join(directory.reassert(attached)), "a reassert is no older write's way around the order");
    }

    @Test
    void aRemovalLeavesATombstoneThatRefusesAWriteStillOnItsWay() {
        SessionInfo ended = pending().attached().ended(SessionStatus.COMPLETED, T0.plusSeconds(5), "done");
        assertTrue(join(directory.publish(ended)));
        assertEquals(ended, join(directory.remove(ended)));
        assertNull(join(directory.find("s1")));
        assertEquals(List.of(), join(directory.list(null)));
        assertEquals(List.of(), join(directory.liveOn("node-1")));
        assertNull(join(directory.remove(ended)), "removed once");

        assertFalse(join(directory.publish(ended)), "the end republished after the removal");
        assertFalse(join(directory.publish(pending().attached())), "nor a live record of it");
        assertEquals(List.of(), join(directory.markLost("node-1", T0)));
        assertNull(join(directory.find("s1")));

        clock.advance(SessionDirectory.TOMBSTONE_LIFE.plusSeconds(1));
        assertTrue(join(directory.publish(ended)), "the tombstone is gone after its life");
    }

    @Test
    void aDeletedLiveSessionLeavesATombstoneNoRepairMarksLost() {
        SessionInfo attached = pending().attached();
        assertTrue(join(directory.publish(attached)));
        assertEquals(attached, join(directory.remove(attached)));
        assertEquals(List.of(), join(directory.markLost(List.of("s1"), "node-1", T0)),
                "a tombstone is no live session to mark lost");
        assertFalse(join(directory.publish(attached.detached())));
    }
}
