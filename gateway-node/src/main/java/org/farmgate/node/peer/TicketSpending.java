package org.farmgate.node.peer;

import io.vertx.core.Future;
import org.farmgate.node.auth.TicketService;

/**
 * A ticket spent on the node that issued it, asked over the event bus: the request carries the ticket's hash, never
 * the ticket, and the answer the ticket's identity or nothing. One action per kind of ticket, so that a relay ticket
 * is never spent as a browser's.
 */
public final class TicketSpending {

    private TicketSpending() {
    }

    /** The issuers of the tickets that start with {@code prefix}, reached through {@code messenger}. */
    public static TicketService.Issuers issuers(NodeMessenger messenger, String prefix) {
        String action = action(prefix);
        return (issuer, hash) -> messenger.request(issuer, action, hash, TicketService.Ticket.class)
                .recover(error -> Future.failedFuture(error instanceof NodeMessenger.NodeUnreachableException
                        ? new TicketService.IssuerGoneException(error.getMessage()) : error))
                .toCompletionStage();
    }

    /** Answers other nodes asking to spend a ticket that {@code service}, this node's, issued. */
    public static void serve(NodeMessenger messenger, String nodeId, String prefix, TicketService service) {
        messenger.serve(nodeId, action(prefix), String.class, hash -> Future.succeededFuture(service.spend(hash)));
    }

    private static String action(String prefix) {
        return "ticket-spend-" + prefix.replace("_", "");
    }
}
