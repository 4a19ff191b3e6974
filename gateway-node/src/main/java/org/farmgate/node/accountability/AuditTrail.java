package org.farmgate.node.accountability;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.farmgate.durable.AuditEvent;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Fact;
import org.farmgate.node.auth.Identity;

/**
 * Writes audit events: who did what to what, with which outcome. Refusals of unknown callers (a wrong token, a
 * failed sign-in) cost an attacker nothing to make, so at most {@link #REFUSALS_PER_MINUTE} of them a minute are
 * written one by one; the rest are counted and the next written refusal says how many were not.
 */
public final class AuditTrail {

    public static final int REFUSALS_PER_MINUTE = 120;

    /** Who acted: an identity, or someone unknown at an address. */
    public record Actor(String id, String name, String role, String address) {

        public static Actor of(Identity identity, String address) {
            return identity == null ? anonymous(address)
                    : new Actor(identity.id(), identity.name(), identity.role().wireName(), address);
        }

        public static Actor anonymous(String address) {
            return new Actor(null, null, null, address);
        }

        /** The node itself (a coordinator's repair, a purge). */
        public static Actor node(String nodeId) {
            return new Actor("node:" + nodeId, nodeId, null, null);
        }
    }

    private final DurableStore store;
    private final String nodeId;
    private final Clock clock;
    private final AtomicLong windowStart = new AtomicLong();
    private final AtomicLong inWindow = new AtomicLong();
    private final AtomicLong unwritten = new AtomicLong();

    public AuditTrail(DurableStore store, String nodeId, Clock clock) {
        this.store = store;
        this.nodeId = nodeId;
        this.clock = clock;
    }

    public void record(Actor actor, String action, String target, String outcome, String detail) {
        if (AuditEvent.REFUSED.equals(outcome) && actor.id() == null && !admitRefusal()) {
            unwritten.incrementAndGet();
            return;
        }
        String note = detail;
        long skipped = AuditEvent.REFUSED.equals(outcome) ? unwritten.getAndSet(0) : 0;
        if (skipped > 0) {
            note = (detail == null ? "" : detail + "; ") + skipped + " more refusals of unknown callers were not "
                    + "written one by one (over " + REFUSALS_PER_MINUTE + " a minute)";
        }
        store.record(new AuditEvent(Fact.newId(), clock.instant(), action, outcome, actor.id(), actor.name(),
                actor.role(), actor.address(), target, note, nodeId));
    }

    private boolean admitRefusal() {
        long now = clock.millis();
        long start = windowStart.get();
        if (now - start >= Duration.ofMinutes(1).toMillis() && windowStart.compareAndSet(start, now)) {
            inWindow.set(0);
        }
        return inWindow.incrementAndGet() <= REFUSALS_PER_MINUTE;
    }
}
