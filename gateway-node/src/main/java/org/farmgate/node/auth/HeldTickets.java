package org.farmgate.node.auth;

import java.time.Clock;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The tickets a node issued and nobody spent yet, by hash. Every ticket lives as long, so the order they were issued
 * in is the order they expire in: each issue drops the expired ones from the front, and what is held is at most the
 * tickets of the last lifetime, without a timer. A clock set back only delays that sweep; a spent or expired ticket is
 * never given out either way. Called from every event loop: each call is short and under the lock.
 */
final class HeldTickets {

    private final Map<String, TicketService.Ticket> byHash = new LinkedHashMap<>();
    private final Clock clock;

    HeldTickets(Clock clock) {
        this.clock = clock;
    }

    synchronized void hold(String hash, TicketService.Ticket ticket) {
        sweep();
        byHash.put(hash, ticket);
    }

    /** The ticket, removed; null when unknown, already spent or expired. */
    synchronized TicketService.Ticket spend(String hash) {
        sweep();
        return byHash.remove(hash);
    }

    synchronized int size() {
        sweep();
        return byHash.size();
    }

    private void sweep() {
        long now = clock.millis();
        Iterator<TicketService.Ticket> oldest = byHash.values().iterator();
        while (oldest.hasNext() && oldest.next().expiresAt().toEpochMilli() <= now) {
            oldest.remove();
        }
    }
}
