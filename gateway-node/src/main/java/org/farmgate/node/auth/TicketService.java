package org.farmgate.node.auth;

import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.farmgate.router.store.SharedMap;

/**
 * Single-use tickets valid on every node: WebSocket tickets ({@code wst_}), so that a browser never puts its API
 * token in a URL, and relay tickets ({@code rlt_}) with which one node attaches a WebSocket on another's behalf.
 * A ticket is stored by hash with a time to live; the atomic {@code remove} that redeems it makes it single-use.
 *
 * <p>A ticket issued for a credential (a token's hash) is worth what the credential is worth when it is redeemed:
 * revoking the token ends its unredeemed tickets at once, and a changed role applies. Relay tickets carry no
 * credential: a node issues one for an identity it has just checked, and it is redeemed within moments.
 */
public final class TicketService {

    public static final String TICKET_PREFIX = "wst_";
    public static final String RELAY_PREFIX = "rlt_";
    public static final Duration LIFETIME = Duration.ofSeconds(30);

    /** Who the ticket stands for, by which credential (null: none to check again), and until when. */
    public record Ticket(Identity identity, String credential, Instant expiresAt) implements Serializable {
    }

    private final SharedMap<String, Ticket> tickets;
    private final String prefix;
    private final Function<String, CompletionStage<Optional<Identity>>> credentials;
    private final Clock clock;

    /** @param credentials the identity a credential stands for now (empty: revoked) */
    public TicketService(SharedMap<String, Ticket> tickets, String prefix,
            Function<String, CompletionStage<Optional<Identity>>> credentials, Clock clock) {
        this.tickets = tickets;
        this.prefix = prefix;
        this.credentials = credentials;
        this.clock = clock;
    }

    /** A ticket for an identity proven by {@code credential}, or, with null, one that is taken as it is. */
    public CompletionStage<String> issue(Identity identity, String credential) {
        String ticket = Secrets.newSecret(prefix);
        return tickets.set(Secrets.sha256Hex(ticket), new Ticket(identity, credential,
                clock.instant().plus(LIFETIME)), LIFETIME).thenApply(ignored -> ticket);
    }

    /** The identity behind a valid ticket, consuming it; empty when unknown, used, expired or revoked. */
    public CompletionStage<Optional<Identity>> redeem(String ticket) {
        if (ticket == null || !ticket.startsWith(prefix)) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return tickets.remove(Secrets.sha256Hex(ticket)).thenCompose(found -> {
            if (found == null || !clock.instant().isBefore(found.expiresAt())) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            return found.credential() == null ? CompletableFuture.completedFuture(Optional.of(found.identity()))
                    : credentials.apply(found.credential());
        });
    }
}
