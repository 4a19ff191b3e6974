package org.farmgate.node.tunnel;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;
import org.farmgate.model.SessionStatus;
import org.farmgate.node.api.ApiException;
import org.farmgate.node.api.Authenticator;
import org.farmgate.node.api.Responses;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.TicketService;
import org.farmgate.node.guacd.GuacdClient;
import org.farmgate.node.guacd.GuacdException;
import org.farmgate.node.session.AttachRefusedException;
import org.farmgate.node.session.ClientHints;
import org.farmgate.node.session.LocalSession;
import org.farmgate.node.session.SessionHost;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.Instruction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /ws/{session_id}}: the WebSocket a Guacamole client attaches to a pending session.
 *
 * <p>A foreign Origin gets a plain 403 before any upgrade. Everything after the upgrade is reported the way Apache
 * Guacamole's tunnel does, as an {@code error} instruction and a close whose reason is the numeric status: a
 * browser cannot read an HTTP status from a failed upgrade, but guacamole-common-js shows this one to the user.
 * The guacd handshake runs only now, when a client is there to answer guacd (guacd drops a silent user after 15 s).
 */
public final class TunnelEndpoint {

    private static final Logger LOG = LoggerFactory.getLogger(TunnelEndpoint.class);

    private final Vertx vertx;
    private final Authenticator auth;
    private final TicketService tickets;
    private final SessionHost host;
    private final GuacdClient guacd;
    private final OriginPolicy origins;
    private final String defaultTimezone;

    public TunnelEndpoint(Vertx vertx, Authenticator auth, TicketService tickets, SessionHost host,
            GuacdClient guacd, OriginPolicy origins, String defaultTimezone) {
        this.vertx = vertx;
        this.auth = auth;
        this.tickets = tickets;
        this.host = host;
        this.guacd = guacd;
        this.origins = origins;
        this.defaultTimezone = defaultTimezone;
    }

    public void mount(Router router) {
        router.get("/ws/:id").handler(this::handle);
    }

    private void handle(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (!origins.allows(request)) {
            Responses.error(ctx, new ApiException(403, "origin " + request.getHeader("Origin")
                    + " may not open tunnels here (see GW_ALLOWED_ORIGINS)"));
            return;
        }
        String upgrade = request.getHeader(HttpHeaders.UPGRADE);
        if (upgrade == null || !upgrade.equalsIgnoreCase("websocket")) {
            Responses.error(ctx, ApiException.badRequest("expected a WebSocket upgrade (Upgrade: websocket)"));
            return;
        }
        String sessionId = ctx.pathParam("id");
        String ticket = request.getParam("ticket");
        Optional<Identity> identity = ticket != null ? tickets.redeem(ticket) : auth.identify(request);
        ClientHints hints = hints(request.params());
        request.toWebSocket()
                .onSuccess(ws -> attach(ws, sessionId, identity, ticket != null, hints))
                .onFailure(error -> LOG.debug("WebSocket upgrade for session {} failed: {}", sessionId,
                        error.getMessage()));
    }

    private void attach(ServerWebSocket ws, String sessionId, Optional<Identity> identity, boolean byTicket,
            ClientHints hints) {
        if (identity.isEmpty()) {
            refuse(ws, GuacamoleStatus.CLIENT_UNAUTHORIZED, byTicket
                    ? "the ticket is unknown, already used or expired (tickets are single-use and valid 30 s)"
                    : "missing or invalid credentials: pass ?ticket= or an API token header");
            return;
        }
        LocalSession session;
        try {
            session = host.beginAttach(sessionId, identity.get());
        } catch (AttachRefusedException refused) {
            refuse(ws, refused.status(), refused.getMessage());
            return;
        }
        ws.pause();
        guacd.connect(session.handshakeRequest(hints, defaultTimezone))
                .onSuccess(connection -> {
                    if (ws.isClosed()) {
                        connection.socket().close();
                        host.attachFailed(session, SessionStatus.COMPLETED,
                                "the client left during the guacd handshake");
                        return;
                    }
                    Tunnel tunnel = new Tunnel(vertx, ws, connection, session.id(),
                            end -> host.tunnelEnded(session, end));
                    if (!host.activate(session, tunnel)) {
                        connection.socket().close();
                        refuse(ws, GuacamoleStatus.SESSION_CLOSED, "the session was deleted");
                        return;
                    }
                    tunnel.start();
                })
                .onFailure(error -> {
                    int status = error instanceof GuacdException guacdError ? guacdError.status()
                            : GuacamoleStatus.SERVER_ERROR.code();
                    host.attachFailed(session, SessionStatus.ERROR, error.getMessage());
                    refuse(ws, status, error.getMessage());
                });
    }

    private static void refuse(ServerWebSocket ws, GuacamoleStatus status, String message) {
        refuse(ws, status.code(), message);
    }

    private static void refuse(ServerWebSocket ws, int status, String message) {
        if (ws.isClosed()) {
            return;
        }
        ws.writeTextMessage(Instruction.of("error", message, String.valueOf(status)).encode());
        ws.close(GuacamoleStatus.webSocketCloseCodeOf(status), String.valueOf(status));
    }

    private static ClientHints hints(MultiMap params) {
        return new ClientHints(params.getAll("GUAC_AUDIO"), params.getAll("GUAC_VIDEO"), params.getAll("GUAC_IMAGE"),
                params.get("GUAC_TIMEZONE"));
    }
}
