package org.farmgate.node.tunnel;

import io.netty.handler.codec.CorruptedFrameException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.ServerWebSocket;
import java.time.Duration;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.GatewayException;
import org.farmgate.model.SessionStatus;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.ShareCheck;
import org.farmgate.node.guacd.GuacdClient;
import org.farmgate.node.guacd.GuacdException;
import org.farmgate.node.guacd.HandshakeRequest;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.session.ClientHints;
import org.farmgate.node.session.LocalSession;
import org.farmgate.node.session.RecordingTap;
import org.farmgate.node.session.SessionHost;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * Attaches a WebSocket to a session this node holds: claims the session, runs the guacd handshake (only now, when
 * a client is there to answer guacd), and starts the tunnel. The WebSocket may be a browser's or another node's
 * relay; it is paused until the tunnel runs.
 */
final class LocalAttach {

    private final Vertx vertx;
    private final SessionHost host;
    private final GuacdClient guacd;
    private final String defaultTimezone;
    private final NodeMetrics metrics;
    private final Duration stallLimit;
    private final ShareCheck shares;

    LocalAttach(Vertx vertx, SessionHost host, GuacdClient guacd, String defaultTimezone, Duration stallLimit,
            ShareCheck shares, NodeMetrics metrics) {
        this.shares = shares;
        this.metrics = metrics;
        this.stallLimit = stallLimit;
        this.vertx = vertx;
        this.host = host;
        this.guacd = guacd;
        this.defaultTimezone = defaultTimezone;
    }

    void attach(ServerWebSocket ws, ViolationWatch watch, String sessionId, Identity identity, ClientHints hints) {
        if (identity.share() != null) {
            watch(ws, sessionId, identity, hints);
            return;
        }
        LocalSession session;
        try {
            session = host.beginAttach(sessionId, identity);
        } catch (GatewayException refused) {
            Closing.withError(ws, refused.guacamoleCode(), refused.getMessage());
            return;
        }
        if (ws.isClosed()) {
            clientGone(session, watch, "before the guacd handshake");
            return;
        }
        long started = System.nanoTime();
        Context context = vertx.getOrCreateContext(); // the WebSocket's: its handlers run here
        HandshakeRequest request = session.handshakeRequest(hints, defaultTimezone);
        // The session's own connection is recorded whole; a client joining it later adds only its input.
        RecordingTap recording = request.join() == null ? session.recording()
                : session.recording().joinedBy(identity.name(), false);
        guacd.connect(request)
                .onComplete(result -> metrics.handshake(result.succeeded() ? "ok" : result.cause()
                        instanceof GuacdException e ? String.valueOf(e.guacamoleCode()) : "failed", System.nanoTime() - started))
                .onSuccess(connection -> {
                    if (ws.isClosed()) {
                        connection.socket().close();
                        clientGone(session, watch, "during the guacd handshake");
                        return;
                    }
                    Tunnel tunnel = new Tunnel(context, ws, connection, session.id(), metrics, stallLimit,
                            (end, hold) -> host.tunnelEnded(session, end, hold), ClientInput.FULL, recording);
                    if (!host.activate(session, tunnel, connection.connectionId())) {
                        connection.socket().close();
                        Closing.withError(ws, GuacamoleStatus.SESSION_CLOSED.code(), "the session was deleted");
                        return;
                    }
                    tunnel.start();
                    metrics.attach().record(System.nanoTime() - started, java.util.concurrent.TimeUnit.NANOSECONDS);
                })
                .onFailure(error -> {
                    int status = error instanceof GatewayException known ? known.guacamoleCode()
                            : GuacamoleStatus.SERVER_ERROR.code();
                    host.attachFailed(session, SessionStatus.ERROR, error.getMessage());
                    Closing.withError(ws, status, error.getMessage());
                });
    }

    /**
     * Attaches someone who came by a share link: a guacd join of the session's connection, with a tunnel of its own
     * that never touches the session's state (the owner's tunnel and the session's end decide that). The share is
     * checked here, on the node that holds the session, as the last step before guacd sees the watcher: a link
     * revoked after the ticket was issued lets no one in.
     */
    private void watch(ServerWebSocket ws, String sessionId, Identity identity, ClientHints hints) {
        SessionHost.Watch place;
        try {
            place = host.beginWatch(sessionId, identity);
        } catch (GatewayException refused) {
            Closing.withError(ws, refused.guacamoleCode(), refused.getMessage());
            return;
        }
        Identity.ShareScope scope = identity.share();
        LocalSession session = place.session();
        Context context = vertx.getOrCreateContext(); // the WebSocket's: its handlers run here
        shares.stands(scope).compose(stands -> {
            if (!stands) {
                return Future.failedFuture(new ForbiddenException("the share link was revoked or has expired"));
            }
            return guacd.connect(session.watchRequest(hints, defaultTimezone, identity.name(), scope.readOnly()));
        }).onSuccess(connection -> {
            if (ws.isClosed()) {
                connection.socket().close();
                place.failed();
                return;
            }
            Tunnel tunnel = new Tunnel(context, ws, connection, session.id(), metrics, stallLimit,
                    (end, hold) -> place.ended(end), scope.readOnly() ? ClientInput.READ_ONLY : ClientInput.FULL,
                    session.recording().joinedBy(identity.name(), true));
            if (!place.started(tunnel)) {
                connection.socket().close();
                Closing.withError(ws, GuacamoleStatus.SESSION_CLOSED.code(), "the session has ended");
                return;
            }
            tunnel.start();
        }).onFailure(error -> {
            place.failed();
            Closing.withError(ws, error instanceof GatewayException known ? known.guacamoleCode()
                    : GuacamoleStatus.SERVER_ERROR.code(), error.getMessage());
        });
    }

    private void clientGone(LocalSession session, ViolationWatch watch, String when) {
        CorruptedFrameException violation = watch.seen();
        if (violation != null) {
            host.attachFailed(session, SessionStatus.ERROR, "the client broke the WebSocket protocol " + when + ": "
                    + violation.getMessage());
        } else {
            host.attachFailed(session, SessionStatus.COMPLETED, "the client left " + when);
        }
    }
}
