package org.farmgate.node.session;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.ForbiddenException;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.router.SessionDirectory;

/**
 * The sessions API's reads and deletes, cluster-wide: reads go to the directory, a delete to whichever node holds
 * the session. Creating one is {@link SessionCreation}'s.
 */
public final class SessionService {

    private final Vertx vertx;
    private final String nodeId;
    private final SessionDirectory directory;
    private final SessionHost host;
    private final SessionLedger ledger;
    private final OpenEndpoint endpoint;

    public SessionService(Vertx vertx, String nodeId, SessionDirectory directory, SessionHost host,
            SessionLedger ledger, OpenEndpoint endpoint) {
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.directory = directory;
        this.host = host;
        this.ledger = ledger;
        this.endpoint = endpoint;
    }

    public Future<List<SessionInfo>> list(Identity caller, boolean all) {
        if (all && !caller.isAdmin()) {
            throw new ForbiddenException("only admins may list everyone's sessions (all=true)");
        }
        return await(directory.list(all ? null : caller.id()));
    }

    /** A session the caller may see: other users' sessions do not exist for non-admins. */
    public Future<Optional<SessionInfo>> get(Identity caller, String sessionId) {
        return await(directory.find(sessionId)).map(info -> Optional.ofNullable(info)
                .filter(found -> SessionHost.mayUse(caller, found)));
    }

    /**
     * Deletes on the node that holds the session. The record of a session that already ended, or whose node cannot
     * be reached, is forgotten here. A session held here is deleted without reading its record: this node is where
     * the record would send the request, and the host checks the caller as the record's reader would.
     */
    public Future<Boolean> delete(Identity caller, String sessionId) {
        if (host.local(sessionId) != null) {
            return host.delete(sessionId, caller);
        }
        return get(caller, sessionId).compose(found -> {
            if (found.isEmpty()) {
                return Future.succeededFuture(false);
            }
            String owner = found.get().nodeId();
            if (owner.equals(nodeId)) {
                return host.delete(sessionId, caller);
            }
            if (!found.get().status().isLive()) {
                return await(ledger.forget(found.get())).map(true);
            }
            // A late answer is not a missing node: the session may still run there, so its record stays.
            return endpoint.deleteThere(owner, sessionId, caller)
                    .recover(error -> error instanceof NodeMessenger.NodeUnreachableException
                            ? await(ledger.forget(found.get())).map(true) : Future.failedFuture(error));
        });
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
