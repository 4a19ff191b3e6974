package org.farmgate.node.auth;

import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.farmgate.router.store.SharedMap;

/**
 * Single-use tickets valid on every node: WebSocket tickets ({@code wst_}), so that a browser never puts its API
 * token in a URL, and relay tickets ({@code rlt_}) with which one node attaches a WebSocket on another's behalf.
 * A ticket is stored by hash with a time to live; the atomic {@code remove} that redeems it makes it single-use.
 */
public final class TicketService {

    public static final String TICKET_PREFIX = "wst_";
    public static final String RELAY_PREFIX = "rlt_";
    public static final Duration LIFETIME = Duration.ofSeconds(30);

    /** Who the ticket stands for, and until when. */
    public record Ticket(Identity identity, Instant expiresAt) implements Serializable {
    }

    private final SharedMap<String, Ticket> tickets;
    private final String prefix;
    private final Clock clock;

    public TicketService(SharedMap<String, Ticket> tickets, String prefix, Clock clock) {
        this.tickets = tickets;
        this.prefix = prefix;
        this.clock = clock;
    }

    public CompletionStage<String> issue(Identity identity) {
        String ticket = Secrets.newSecret(prefix);
        return tickets.set(Secrets.sha256Hex(ticket), new Ticket(identity, clock.instant().plus(LIFETIME)), LIFETIME)
                .thenApply(ignored -> ticket);
    }

    /** The identity behind a valid ticket, consuming it; empty when unknown, used or expired. */
    public CompletionStage<Optional<Identity>> redeem(String ticket) {
        if (ticket == null || !ticket.startsWith(prefix)) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return tickets.remove(Secrets.sha256Hex(ticket)).thenApply(found ->
                found == null || !clock.instant().isBefore(found.expiresAt())
                        ? Optional.empty() : Optional.of(found.identity()));
    }
}
