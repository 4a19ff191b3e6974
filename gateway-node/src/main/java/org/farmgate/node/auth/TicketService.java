package org.farmgate.node.auth;

import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.farmgate.error.Failures;

/**
 * Single-use tickets valid on every node: WebSocket tickets ({@code wst_}), so that a browser never puts its API
 * token in a URL, and relay tickets ({@code rlt_}) with which one node attaches a WebSocket on another's behalf.
 *
 * <p>A ticket is held by the node that issued it, in its memory, by hash, and names that node: {@code
 * wst_<issuer, base64url>.<secret>}. Redeeming it removes it there, on this node directly and on another by one
 * request on the event bus ({@link Issuers}; mutual TLS in a secured cluster). So nothing of a ticket is in a cluster
 * map, where a stranger on the cluster network could copy a ticket and put it back once spent, and spending one tells
 * no other node: the issuer's removal is the single use, where a shared ticket needed a fence to every node (at 1000
 * nodes four in ten of a node's control messages, simulated). What it costs: a ticket dies with its issuer (it lives
 * 30 s; the browser asks for another), and a ticket naming a node that is not there is unknown.
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

    /** How a node spends a ticket another node issued. */
    @FunctionalInterface
    public interface Issuers {

        /**
         * The ticket {@code hash} names, removed from node {@code issuer}; null when that node does not hold it. Fails
         * with {@link IssuerGoneException} when the request certainly never reached the node.
         */
        CompletionStage<Ticket> spend(String issuer, String hash);
    }

    /** The issuer of a ticket cannot be reached: gone, or never there. The ticket is as good as unknown. */
    public static final class IssuerGoneException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        public IssuerGoneException(String message) {
            super(message, null, false, false);
        }
    }

    private static final Base64.Encoder NODE_ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final char SEPARATOR = '.';

    private final String nodeId;
    private final String prefix;
    private final String ownPrefix;
    private final HeldTickets held;
    private final Issuers issuers;
    private final Function<String, CompletionStage<Optional<Identity>>> credentials;
    private final Clock clock;

    /**
     * @param nodeId this node, the issuer of its tickets
     * @param credentials the identity a credential stands for now (empty: revoked)
     */
    public TicketService(String nodeId, String prefix, Issuers issuers,
            Function<String, CompletionStage<Optional<Identity>>> credentials, Clock clock) {
        this.nodeId = nodeId;
        this.prefix = prefix;
        this.ownPrefix = prefix + NODE_ENCODER.encodeToString(nodeId.getBytes(StandardCharsets.UTF_8)) + SEPARATOR;
        this.held = new HeldTickets(clock);
        this.issuers = issuers;
        this.credentials = credentials;
        this.clock = clock;
    }

    /** A ticket for an identity proven by {@code credential}, or, with null, one that is taken as it is. */
    public CompletionStage<String> issue(Identity identity, String credential) {
        String ticket = Secrets.newSecret(ownPrefix);
        held.hold(Secrets.sha256Hex(ticket), new Ticket(identity, credential, clock.instant().plus(LIFETIME)));
        return CompletableFuture.completedFuture(ticket);
    }

    /** The identity behind a valid ticket, consuming it; empty when unknown, used, expired or revoked. */
    public CompletionStage<Optional<Identity>> redeem(String ticket) {
        String issuer = issuerOf(ticket);
        if (issuer == null) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        String hash = Secrets.sha256Hex(ticket);
        CompletionStage<Ticket> spent = issuer.equals(nodeId) ? CompletableFuture.completedFuture(held.spend(hash))
                : issuers.spend(issuer, hash).exceptionallyCompose(error ->
                        Failures.cause(error) instanceof IssuerGoneException ? CompletableFuture.completedFuture(null)
                                : CompletableFuture.failedFuture(error));
        return spent.thenCompose(found -> {
            if (found == null || !clock.instant().isBefore(found.expiresAt())) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            return found.credential() == null ? CompletableFuture.completedFuture(Optional.of(found.identity()))
                    : credentials.apply(found.credential());
        });
    }

    /** Spends a ticket this node issued, for a peer that was handed it: null when it holds no such ticket. */
    public Ticket spend(String hash) {
        return held.spend(hash);
    }

    /** Tickets this node holds, spent or expired ones not counted once swept. */
    public int held() {
        return held.size();
    }

    /** The node a ticket of this kind names, or null when it is not one. */
    private String issuerOf(String ticket) {
        if (ticket == null || !ticket.startsWith(prefix)) {
            return null;
        }
        int separator = ticket.indexOf(SEPARATOR, prefix.length());
        if (separator < 0) {
            return null;
        }
        try {
            String issuer = new String(Base64.getUrlDecoder().decode(ticket.substring(prefix.length(), separator)),
                    StandardCharsets.UTF_8);
            return issuer.isEmpty() ? null : issuer;
        } catch (IllegalArgumentException notBase64) {
            return null;
        }
    }
}
