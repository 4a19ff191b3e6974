package org.farmgate.node.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentMap;

/**
 * Single-use WebSocket tickets, so that a browser never puts its API token in a URL. A ticket is stored by hash; the
 * atomic {@code remove} that redeems it is what makes it single-use, on one node or on a map every node shares.
 */
public final class TicketService {

    public static final String TICKET_PREFIX = "wst_";
    public static final Duration LIFETIME = Duration.ofSeconds(30);

    /** Who the ticket stands for, and until when. */
    public record Ticket(Identity identity, Instant expiresAt) {
    }

    private final ConcurrentMap<String, Ticket> tickets;
    private final Clock clock;

    public TicketService(ConcurrentMap<String, Ticket> tickets, Clock clock) {
        this.tickets = tickets;
        this.clock = clock;
    }

    public String issue(Identity identity) {
        String ticket = Secrets.newSecret(TICKET_PREFIX);
        tickets.put(Secrets.sha256Hex(ticket), new Ticket(identity, clock.instant().plus(LIFETIME)));
        return ticket;
    }

    /** The identity behind a valid ticket, consuming it; empty when unknown, used or expired. */
    public Optional<Identity> redeem(String ticket) {
        if (ticket == null || !ticket.startsWith(TICKET_PREFIX)) {
            return Optional.empty();
        }
        Ticket found = tickets.remove(Secrets.sha256Hex(ticket));
        if (found == null || !clock.instant().isBefore(found.expiresAt())) {
            return Optional.empty();
        }
        return Optional.of(found.identity());
    }

    /** Drops tickets nobody redeemed, so the map stays as small as the traffic of the last 30 seconds. */
    public int purgeExpired() {
        Instant now = clock.instant();
        int before = tickets.size();
        tickets.values().removeIf(ticket -> !now.isBefore(ticket.expiresAt()));
        return before - tickets.size();
    }
}
