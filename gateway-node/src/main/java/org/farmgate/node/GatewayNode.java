package org.farmgate.node;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.node.api.AddressBookApi;
import org.farmgate.node.api.ApiRouter;
import org.farmgate.node.api.ClusterApi;
import org.farmgate.node.api.HealthApi;
import org.farmgate.node.api.SessionsApi;
import org.farmgate.node.api.TokensApi;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.TicketService;
import org.farmgate.node.auth.TokenService;
import org.farmgate.node.cluster.GuacdProbe;
import org.farmgate.node.cluster.HostProbe;
import org.farmgate.node.cluster.NodeAgent;
import org.farmgate.node.config.AddressBookSettings;
import org.farmgate.node.config.NodeConfig;
import org.farmgate.node.guacd.GuacdClient;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.node.runtime.ClusterRuntime;
import org.farmgate.node.runtime.DaemonThreads;
import org.farmgate.node.session.LocalSession;
import org.farmgate.node.session.SessionHost;
import org.farmgate.node.session.SessionLedger;
import org.farmgate.node.session.SessionService;
import org.farmgate.node.tunnel.OriginPolicy;
import org.farmgate.node.tunnel.TunnelEndpoint;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.SessionRouter;
import org.farmgate.router.addressbook.AddressBookCache;
import org.farmgate.router.addressbook.AddressBookException;
import org.farmgate.router.addressbook.AddressBookSource;
import org.farmgate.router.addressbook.FileSource;
import org.farmgate.router.addressbook.VaultSource;
import org.farmgate.router.registry.NodeRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gateway node: its services wired together on the cluster's maps, and an HTTP server on each event loop
 * sharing one port, so that WebSockets (and their relays) spread over every core.
 */
public final class GatewayNode {

    private static final Logger LOG = LoggerFactory.getLogger(GatewayNode.class);

    private final ClusterRuntime runtime;
    private final Vertx vertx;
    private final NodeConfig config;
    private final SessionHost host;
    private final GuacdClient guacd;
    private final NodeAgent agent;
    private final TunnelEndpoint tunnels;
    private final Router router;
    private final AddressBookRuntime addressBook;
    private final AtomicInteger port = new AtomicInteger();
    private String deployment;

    /**
     * What the node takes from the world beyond its configuration: the time, and its host's memory and load. The
     * real ones in production; tests pass their own, so no outcome depends on the machine or the moment.
     */
    public record Environment(Clock clock, HostProbe host) {

        public static Environment system() {
            return new Environment(Clock.systemUTC(), HostProbe.system());
        }
    }

    private GatewayNode(ClusterRuntime runtime, NodeConfig config, String adminToken, NodeMetrics metrics,
            Environment environment) {
        this.runtime = runtime;
        this.vertx = runtime.vertx();
        this.config = config;
        Clock clock = environment.clock();
        NodeRegistry registry = new NodeRegistry(runtime.nodes());
        SessionRouter sessionRouter = new SessionRouter(registry, clock, config.cluster().heartbeat());
        SessionQuota quota = new SessionQuota(runtime.userSessions());
        SessionDirectory directory = new SessionDirectory(runtime.sessions());
        SessionLedger ledger = new SessionLedger(config.nodeId(), directory, sessionRouter, quota, metrics::ended,
                clock);
        this.host = new SessionHost(vertx, config.nodeId(), new SessionHost.Limits(config.pendingTimeout(),
                config.maxSessionDuration(), config.finishedRetention()), ledger, clock);
        this.guacd = new GuacdClient(vertx, config.guacdHost(), config.guacdPort(), config.guacdConnectTimeout(),
                config.guacdStepTimeout());
        this.agent = new NodeAgent(vertx, config, registry, runtime.membership(), environment.host(),
                new GuacdProbe(vertx, config.guacdHost(), config.guacdPort(), config.guacdStepTimeout().toMillis()),
                host, ledger, clock);
        TokenService tokens = new TokenService(adminToken, runtime.tokens(), runtime.tokenNames(), clock);
        TicketService tickets = new TicketService(runtime.tickets(), TicketService.TICKET_PREFIX, clock);
        TicketService relayTickets = new TicketService(runtime.relayTickets(), TicketService.RELAY_PREFIX, clock);
        Authenticator auth = new Authenticator(vertx, tokens);
        SessionService sessions = new SessionService(vertx, config.nodeId(), config.targets(),
                config.maxSessionsPerUser(), host, directory, sessionRouter, quota, ledger, new NodeMessenger(vertx, 10_000),
                metrics);
        metrics.bind(() -> host.live().stream().map(LocalSession::info).toList(), agent::lastPublished);
        sessions.serve();
        this.addressBook = addressBook(config, runtime, metrics, clock);
        if (addressBook != null) {
            sessions.addressBook(addressBook.cache().source());
        }

        this.router = ApiRouter.create(vertx, config.maxBodyBytes());
        new HealthApi(config.nodeId())
                .check(() -> {
                    NodeLoad self = agent.lastPublished();
                    int members = runtime.membership().memberIds().size();
                    return new HealthApi.Check("cluster", self != null && runtime.isRunning(), self == null
                            ? "not registered yet" : (runtime.isClustered() ? members + " members" : "running alone"));
                })
                .check(this::addressBookCheck)
                .check(() -> {
                    NodeLoad self = agent.lastPublished();
                    boolean healthy = self != null && self.measurements().guacdHealthy();
                    return new HealthApi.Check("guacd", healthy, config.guacdHost() + ":" + config.guacdPort()
                            + (healthy ? " answers" : " does not answer"));
                })
                .mount(router);
        new SessionsApi(sessions, metrics, config.pendingTimeout().toSeconds()).mount(router, auth);
        new TokensApi(vertx, tokens, tickets).mount(router, auth);
        new ClusterApi(vertx, registry, agent).mount(router, auth);
        if (addressBook != null) {
            new AddressBookApi(vertx, addressBook.cache(), addressBook.blocking(), sessions,
                    config.pendingTimeout().toSeconds()).mount(router, auth);
        }
        this.tunnels = new TunnelEndpoint(vertx, config.nodeId(), auth, tickets, relayTickets, host, directory,
                registry, guacd, new OriginPolicy(config.allowedOrigins()), config.defaultTimezone().getId(), metrics);
        router.get("/metrics").handler(ctx -> ctx.response()
                .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape()));
        // The browser pages: the client at /, the capacity view at /admin.html (tokens never appear in URLs
        // sent to the server: they travel in the fragment and then live in sessionStorage). GET and HEAD only, so
        // a wrong method on an API path still answers 405 rather than falling through to a static 404.
        router.route("/*").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(StaticHandler.create("webroot").setCachingEnabled(false));
        tunnels.mount(router);
    }

    /** The address book's cache and the threads its blocking source runs on. */
    private record AddressBookRuntime(AddressBookCache cache, ExecutorService blocking, ExecutorService loader) {

        void close() {
            blocking.shutdownNow();
            loader.shutdownNow();
        }
    }

    private static AddressBookRuntime addressBook(NodeConfig config, ClusterRuntime runtime, NodeMetrics metrics,
            Clock clock) {
        AddressBookSettings settings = config.addressBook();
        if (!settings.configured()) {
            return null;
        }
        int width = settings.vault() != null ? settings.vault().parallelism() : 1;
        ExecutorService blocking = Executors.newFixedThreadPool(width, DaemonThreads.named("farmgate-addressbook-io"));
        ExecutorService loader = Executors.newFixedThreadPool(2, DaemonThreads.named("farmgate-addressbook-load"));
        AddressBookSource source;
        try {
            source = settings.vault() != null
                    ? new VaultSource(settings.vault(), blocking, metrics.vaultCalls(), clock)
                    : new FileSource(settings.file(), clock);
        } catch (AddressBookException e) {
            blocking.shutdownNow();
            loader.shutdownNow();
            throw new IllegalStateException(e.getMessage(), e);
        }
        AddressBookCache cache = new AddressBookCache(runtime.addressBooks(), runtime.addressBookLeases(), source,
                loader, settings.ttl(), config.nodeId(), clock, metrics.addressBookListener());
        LOG.info("address book from {}", settings.vault() != null ? settings.vault() : settings.file());
        return new AddressBookRuntime(cache, blocking, loader);
    }

    /** Ready unless the address book is configured and this cluster never managed to load it. */
    private HealthApi.Check addressBookCheck() {
        if (addressBook == null) {
            return new HealthApi.Check("addressbook", true, "not configured");
        }
        AddressBook seen = addressBook.cache().lastSeen();
        String failure = addressBook.cache().lastFailure();
        if (seen == null) {
            return new HealthApi.Check("addressbook", failure == null, failure == null ? "not read yet"
                    : "never loaded: " + failure);
        }
        return new HealthApi.Check("addressbook", true, seen.error() == null ? seen.entryCount()
                + " entries, loaded " + seen.loadedAt() : "serving the copy of " + seen.loadedAt()
                + "; the last refresh failed: " + seen.error());
    }

    /** Starts a node on this machine, joining its cluster; {@code adminToken} is the bootstrap admin token. */
    public static Future<GatewayNode> start(NodeConfig config, String adminToken) {
        return start(config, adminToken, Environment.system());
    }

    public static Future<GatewayNode> start(NodeConfig config, String adminToken, Environment environment) {
        NodeMetrics metrics = new NodeMetrics();
        return ClusterRuntime.start(config, metrics).compose(runtime -> {
            GatewayNode node = new GatewayNode(runtime, config, adminToken, metrics, environment);
            return node.listen()
                    .compose(ignored -> node.agent.start(node.httpPort()))
                    .map(node)
                    .recover(error -> runtime.close().transform(ignored -> Future.failedFuture(error)));
        });
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

    public NodeAgent agent() {
        return agent;
    }

    public ClusterRuntime runtime() {
        return runtime;
    }

    /**
     * A graceful stop: the node drains (takes no new session), waits up to {@code grace} for its sessions to end,
     * ends the rest, leaves the registry, stops serving, and leaves the cluster so that partitions migrate.
     */
    public Future<Void> shutdown(Duration grace) {
        // Not bound to an event loop: the last step stops them all, and the caller must still hear of the end.
        Promise<Void> done = Promise.promise();
        agent.setDrain(config.nodeId(), true).otherwiseEmpty()
                .compose(ignored -> awaitNoSessions(System.nanoTime() + grace.toNanos()))
                .compose(ignored -> {
                    host.terminateAll(GuacamoleStatus.SERVER_BUSY, "the gateway node is shutting down");
                    return agent.stop().otherwiseEmpty();
                })
                .compose(ignored -> deployment == null ? Future.succeededFuture() : vertx.undeploy(deployment))
                .eventually(tunnels::close)
                .eventually(guacd::close)
                .onComplete(ignored -> {
                    if (addressBook != null) {
                        addressBook.close();
                    }
                    runtime.close().onComplete(done);
                });
        return done.future();
    }

    /** Stops at once: no drain, no wait. */
    public Future<Void> stop() {
        return shutdown(Duration.ZERO);
    }

    private Future<Void> awaitNoSessions(long deadlineNanos) {
        int live = host.live().size();
        if (live == 0 || System.nanoTime() >= deadlineNanos) {
            if (live > 0) {
                LOG.warn("node {}: drain grace over, ending {} sessions", config.nodeId(), live);
            }
            return Future.succeededFuture();
        }
        return Future.<Void>future(promise -> vertx.setTimer(500, id -> promise.complete()))
                .compose(ignored -> awaitNoSessions(deadlineNanos));
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
