package org.farmgate.node.tunnel;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.ShareCheck;
import org.farmgate.node.auth.TicketService;
import org.farmgate.node.config.ClusterSecurity;
import org.farmgate.node.guacd.GuacdClient;
import org.farmgate.node.http.Responses;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.session.ClientHints;
import org.farmgate.node.session.SessionHost;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.registry.NodeRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /ws/{session_id}}: the WebSocket a Guacamole client attaches to a pending session, on any node.
 *
 * <p>A foreign Origin gets a plain 403 before any upgrade. Everything after the upgrade is reported the way Apache
 * Guacamole's tunnel does, as an {@code error} instruction and a close whose reason is the numeric status: a
 * browser cannot read an HTTP status from a failed upgrade, but guacamole-common-js shows this one to the user.
 * A session held here is attached here; one held by another node is relayed to it ({@link NodeRelay}), which
 * answers on {@code /internal/relay/{session_id}} to relay tickets only.
 */
public final class TunnelEndpoint {

    private static final Logger LOG = LoggerFactory.getLogger(TunnelEndpoint.class);
    private static final List<String> HINT_PARAMS = List.of("GUAC_AUDIO", "GUAC_VIDEO", "GUAC_IMAGE", "GUAC_TIMEZONE");

    private final Vertx vertx;
    private final String nodeId;
    private final Authenticator auth;
    private final TicketService tickets;
    private final TicketService relayTickets;
    private final SessionHost host;
    private final SessionDirectory directory;
    private final NodeRegistry registry;
    private final OriginPolicy origins;
    private final LocalAttach local;
    private final NodeRelay relay;

    public TunnelEndpoint(Vertx vertx, String nodeId, ClusterSecurity security, Authenticator auth,
            TicketService tickets,
            TicketService relayTickets, SessionHost host, SessionDirectory directory, NodeRegistry registry,
            GuacdClient guacd, OriginPolicy origins, String defaultTimezone, Duration stallLimit, ShareCheck shares,
            NodeMetrics metrics) {
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.auth = auth;
        this.tickets = tickets;
        this.relayTickets = relayTickets;
        this.host = host;
        this.directory = directory;
        this.registry = registry;
        this.origins = origins;
        this.local = new LocalAttach(vertx, host, guacd, defaultTimezone, stallLimit, shares, metrics);
        this.relay = new NodeRelay(vertx, security, metrics);
    }

    /** The browsers' tunnel, on the public port. */
    public void mount(Router router) {
        router.get("/ws/:id").handler(this::handle);
    }

    /** What other nodes relay here, on the internal relay listener only. */
    public void mountRelay(Router router) {
        router.get(NodeRelay.PATH + ":id").handler(this::handleRelayed);
    }

    /** Tells every browser this node relays something (a shutdown notice). */
    public void tellRelayed(String instruction) {
        relay.tell(instruction);
    }

    private void handle(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (!origins.allows(request)) {
            Responses.error(ctx, new ForbiddenException("origin " + request.getHeader("Origin")
                    + " may not open tunnels here (see GW_ALLOWED_ORIGINS)"));
            return;
        }
        if (!isUpgrade(request)) {
            return400(ctx);
            return;
        }
        String sessionId = ctx.pathParam("id");
        String ticket = request.getParam("ticket");
        Future<Optional<Identity>> identity = ticket != null ? await(tickets.redeem(ticket))
                : auth.identify(request);
        ClientHints hints = hints(request.params());
        List<String[]> forwarded = forwardedHints(request.params());
        request.toWebSocket().onFailure(error -> LOG.debug("upgrade failed: {}", error.getMessage()))
                .onSuccess(ws -> {
                    ws.pause();
                    ViolationWatch watch = ViolationWatch.on(ws);
                    identity.onFailure(error -> Closing.withError(ws, GuacamoleStatus.SERVER_ERROR.code(),
                                    "could not check the credentials: " + error.getMessage()))
                            .onSuccess(found -> {
                                if (found.isEmpty()) {
                                    Closing.withError(ws, GuacamoleStatus.CLIENT_UNAUTHORIZED.code(), ticket != null
                                            ? "the ticket is unknown, already used or expired (tickets are single-use "
                                                    + "and valid 30 s)"
                                            : "missing or invalid credentials: pass ?ticket= or an API token header");
                                } else {
                                    route(ws, watch, sessionId, found.get(), hints, forwarded);
                                }
                            });
                });
    }

    /** Here when the session is here; else to its node, once the directory says which and that the caller may. */
    private void route(ServerWebSocket ws, ViolationWatch watch, String sessionId, Identity identity,
            ClientHints hints, List<String[]> forwarded) {
        if (host.local(sessionId) != null) {
            local.attach(ws, watch, sessionId, identity, hints);
            return;
        }
        await(directory.find(sessionId)).onFailure(error -> Closing.withError(ws, GuacamoleStatus.SERVER_ERROR
                .code(), "could not look the session up: " + error.getMessage())).onSuccess(info -> {
                    if (info == null || !SessionHost.mayAttach(identity, info)) {
                        Closing.withError(ws, GuacamoleStatus.RESOURCE_NOT_FOUND.code(), "no session " + sessionId);
                    } else if (!info.status().isLive()) {
                        Closing.withError(ws, GuacamoleStatus.RESOURCE_CLOSED.code(), "session " + sessionId
                                + " has ended (" + info.status().wireName() + ")");
                    } else if (info.nodeId().equals(nodeId)) {
                        local.attach(ws, watch, sessionId, identity, hints); // e.g. ended meanwhile: attach says so
                    } else {
                        relayTo(ws, info, identity, forwarded);
                    }
                });
    }

    private void relayTo(ServerWebSocket ws, SessionInfo info, Identity identity, List<String[]> forwarded) {
        await(registry.get(info.nodeId())).compose(owner -> {
            if (owner == null) {
                throw new IllegalStateException("node " + info.nodeId() + " that holds the session is not in the "
                        + "cluster");
            }
            return await(relayTickets.issue(identity, null)).map(ticket -> {
                relay.relay(ws, info.sessionId(), owner.address(), owner.nodeId(), ticket, forwarded);
                return null;
            });
        }).onFailure(error -> Closing.withError(ws, GuacamoleStatus.UPSTREAM_UNAVAILABLE.code(),
                error.getMessage()));
    }

    /** Another node relays a browser here, with a relay ticket it put in the cluster for this one attach. */
    private void handleRelayed(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (!isUpgrade(request)) {
            return400(ctx);
            return;
        }
        String sessionId = ctx.pathParam("id");
        Future<Optional<Identity>> identity = await(relayTickets.redeem(request.getParam("ticket")));
        ClientHints hints = hints(request.params());
        request.toWebSocket().onSuccess(ws -> {
            ws.pause();
            ViolationWatch watch = ViolationWatch.on(ws);
            identity.onFailure(error -> Closing.withError(ws, GuacamoleStatus.SERVER_ERROR.code(),
                    error.getMessage())).onSuccess(found -> {
                        if (found.isEmpty()) {
                            Closing.withError(ws, GuacamoleStatus.CLIENT_UNAUTHORIZED.code(),
                                    "the relay ticket is unknown, used or expired");
                        } else {
                            local.attach(ws, watch, sessionId, found.get(), hints);
                        }
                    });
        });
    }

    private static boolean isUpgrade(HttpServerRequest request) {
        String upgrade = request.getHeader(HttpHeaders.UPGRADE);
        return upgrade != null && upgrade.equalsIgnoreCase("websocket");
    }

    private static void return400(RoutingContext ctx) {
        Responses.error(ctx, new InvalidRequestException("expected a WebSocket upgrade (Upgrade: websocket)"));
    }

    private static ClientHints hints(MultiMap params) {
        return new ClientHints(params.getAll("GUAC_AUDIO"), params.getAll("GUAC_VIDEO"), params.getAll("GUAC_IMAGE"),
                params.get("GUAC_TIMEZONE"));
    }

    private static List<String[]> forwardedHints(MultiMap params) {
        List<String[]> out = new ArrayList<>();
        for (String name : HINT_PARAMS) {
            for (String value : params.getAll(name)) {
                out.add(new String[] {name, value});
            }
        }
        return out;
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }

    public Future<Void> close() {
        return relay.close();
    }
}
