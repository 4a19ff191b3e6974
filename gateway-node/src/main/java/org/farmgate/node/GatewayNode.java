package org.farmgate.node;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.node.api.ApiRouter;
import org.farmgate.node.api.Authenticator;
import org.farmgate.node.api.HealthApi;
import org.farmgate.node.api.SessionsApi;
import org.farmgate.node.api.TokensApi;
import org.farmgate.node.auth.TicketService;
import org.farmgate.node.auth.TokenService;
import org.farmgate.node.config.NodeConfig;
import org.farmgate.node.guacd.GuacdClient;
import org.farmgate.node.session.SessionHost;
import org.farmgate.node.session.SessionService;
import org.farmgate.node.tunnel.OriginPolicy;
import org.farmgate.node.tunnel.TunnelEndpoint;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.router.SessionDirectory;

/**
 * One gateway node: its services wired together, and an HTTP server on each event loop sharing one port, so that
 * WebSockets (and their relays) spread over every core.
 */
public final class GatewayNode {

    private final Vertx vertx;
    private final NodeConfig config;
    private final SessionHost host;
    private final GuacdClient guacd;
    private final TicketService tickets;
    private final Router router;
    private final AtomicInteger port = new AtomicInteger();
    private long ticketSweeper = -1;
    private String deployment;

    private GatewayNode(Vertx vertx, NodeConfig config, String adminToken) {
        this.vertx = vertx;
        this.config = config;
        Clock clock = Clock.systemUTC();
        SessionDirectory directory = new SessionDirectory(new ConcurrentHashMap<>());
        this.host = new SessionHost(vertx, config.nodeId(), new SessionHost.Limits(config.maxSessions(),
                config.maxSessionsPerUser(), config.pendingTimeout(), config.maxSessionDuration(),
                config.finishedRetention()), directory, clock);
        this.guacd = new GuacdClient(vertx, config.guacdHost(), config.guacdPort(), config.guacdConnectTimeout(),
                config.guacdStepTimeout());
        TokenService tokens = new TokenService(adminToken, new ConcurrentHashMap<>(), new ConcurrentHashMap<>(), clock);
        this.tickets = new TicketService(new ConcurrentHashMap<>(), clock);
        Authenticator auth = new Authenticator(tokens);
        SessionService sessions = new SessionService(vertx, config.targets(), config.costModel(), host, directory);

        this.router = ApiRouter.create(vertx, config.maxBodyBytes());
        new HealthApi(config.nodeId()).mount(router);
        new SessionsApi(sessions).mount(router, auth);
        new TokensApi(tokens, tickets).mount(router, auth);
        new TunnelEndpoint(vertx, auth, tickets, host, guacd, new OriginPolicy(config.allowedOrigins()),
                config.defaultTimezone().getId()).mount(router);
    }

    /** Starts a node; {@code adminToken} is the bootstrap admin token (configured or generated). */
    public static Future<GatewayNode> start(Vertx vertx, NodeConfig config, String adminToken) {
        GatewayNode node = new GatewayNode(vertx, config, adminToken);
        return node.listen().map(node);
    }

    private Future<Void> listen() {
        HttpServerOptions options = new HttpServerOptions()
                .setHost(config.httpHost())
                .setPort(config.httpPort())
                .setTcpNoDelay(true)
                .setWebSocketSubProtocols(List.of("guacamole"))
                // Guacamole's images are PNG/JPEG already; deflate would cost CPU and ~100s of KB per socket.
                .setPerMessageWebSocketCompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false);
        // Port 0 (tests) cannot be shared by several servers: each would get its own port.
        int instances = config.httpPort() == 0 ? 1 : config.eventLoops();
        ticketSweeper = vertx.setPeriodic(30_000, id -> tickets.purgeExpired());
        return vertx.deployVerticle(() -> new HttpVerticle(router, options, port),
                        new DeploymentOptions().setInstances(instances))
                .onSuccess(id -> deployment = id)
                .mapEmpty();
    }

    /** The port the node listens on (the configured one, or the one the OS chose for port 0). */
    public int httpPort() {
        return port.get();
    }

    public NodeConfig config() {
        return config;
    }

    public SessionHost sessions() {
        return host;
    }

    /** Ends every tunnel (clients are told the node is going away), then stops serving. */
    public Future<Void> stop() {
        host.terminateAll(GuacamoleStatus.SERVER_BUSY, "the gateway node is shutting down");
        vertx.cancelTimer(ticketSweeper);
        Future<Void> undeployed = deployment == null ? Future.succeededFuture() : vertx.undeploy(deployment);
        return undeployed.eventually(() -> guacd.close());
    }

    /** One HTTP server on this verticle's event loop. */
    private static final class HttpVerticle extends VerticleBase {

        private final Router router;
        private final HttpServerOptions options;
        private final AtomicInteger port;
        private HttpServer server;

        HttpVerticle(Router router, HttpServerOptions options, AtomicInteger port) {
            this.router = router;
            this.options = options;
            this.port = port;
        }

        @Override
        public Future<?> start() {
            Promise<Void> started = Promise.promise();
            server = vertx.createHttpServer(options).requestHandler(router);
            server.listen().onSuccess(s -> {
                port.set(s.actualPort());
                started.complete();
            }).onFailure(started::fail);
            return started.future();
        }

        @Override
        public Future<?> stop() {
            return server == null ? Future.succeededFuture() : server.close();
        }
    }
}
