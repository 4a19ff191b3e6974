package org.farmgate.node;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.StaticHandler;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.durable.DurableStore;
import org.farmgate.node.accountability.AuditTrail;
import org.farmgate.node.accountability.DurableTokens;
import org.farmgate.node.accountability.Housekeeping;
import org.farmgate.node.accountability.Restoration;
import org.farmgate.node.accountability.SessionHistory;
import org.farmgate.node.addressbook.AddressBookRuntime;
import org.farmgate.node.api.AddressBookApi;
import org.farmgate.node.api.ApiRouter;
import org.farmgate.node.api.AuditedCalls;
import org.farmgate.node.api.ClusterApi;
import org.farmgate.node.api.CredentialsApi;
import org.farmgate.node.api.HealthApi;
import org.farmgate.node.api.HostKeysApi;
import org.farmgate.node.api.MeApi;
import org.farmgate.node.api.PeopleApi;
import org.farmgate.node.api.QuickConnectApi;
import org.farmgate.node.api.RecordingsApi;
import org.farmgate.node.api.ReportsApi;
import org.farmgate.node.api.SessionsApi;
import org.farmgate.node.api.SharesApi;
import org.farmgate.node.api.ThumbnailsApi;
import org.farmgate.node.api.TokensApi;
import org.farmgate.node.auth.Authenticator;
import org.farmgate.node.auth.LoginSessions;
import org.farmgate.node.auth.TicketService;
import org.farmgate.node.auth.TokenLedger;
import org.farmgate.node.auth.TokenService;
import org.farmgate.node.cluster.GuacdProbe;
import org.farmgate.node.cluster.HostProbe;
import org.farmgate.node.cluster.NodeAgent;
import org.farmgate.node.cluster.OrphanRecords;
import org.farmgate.node.cluster.QuotaRepair;
import org.farmgate.node.cluster.Readiness;
import org.farmgate.node.cluster.Strangers;
import org.farmgate.node.config.AccountabilitySettings;
import org.farmgate.node.config.ClusterSecurity;
import org.farmgate.node.config.ConnectionSettings;
import org.farmgate.node.config.HostKeySettings;
import org.farmgate.node.config.NodeConfig;
import org.farmgate.node.guacd.GuacdClient;
import org.farmgate.node.hostkey.GuacdKeyOrder;
import org.farmgate.node.hostkey.HostKeyProbe;
import org.farmgate.node.hostkey.HostKeyTrust;
import org.farmgate.node.http.ClientAddresses;
import org.farmgate.node.http.ConnectionGuard;
import org.farmgate.node.http.OneBodyLength;
import org.farmgate.node.jump.JumpHosts;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.peer.FenceBus;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.node.peer.PeerChannels;
import org.farmgate.node.peer.TicketSpending;
import org.farmgate.node.people.People;
import org.farmgate.node.recording.LivePlayback;
import org.farmgate.node.recording.RecordingLimits;
import org.farmgate.node.recording.RecordingPolicy;
import org.farmgate.node.recording.RecordingRescue;
import org.farmgate.node.recording.Recordings;
import org.farmgate.node.runtime.ClusterRuntime;
import org.farmgate.node.runtime.DaemonThreads;
import org.farmgate.node.session.LocalSession;
import org.farmgate.node.session.OpenEndpoint;
import org.farmgate.node.session.SessionCreation;
import org.farmgate.node.session.SessionDrives;
import org.farmgate.node.session.SessionEvents;
import org.farmgate.node.session.SessionHost;
import org.farmgate.node.session.SessionLedger;
import org.farmgate.node.session.SessionService;
import org.farmgate.node.session.SessionTargets;
import org.farmgate.node.share.ShareService;
import org.farmgate.node.signin.OidcSignIn;
import org.farmgate.node.thumbnail.Thumbnails;
import org.farmgate.node.tunnel.OriginPolicy;
import org.farmgate.node.tunnel.TunnelEndpoint;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.Notices;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.SessionRouter;
import org.farmgate.router.registry.HeartbeatRead;
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
    private final SessionEvents events;
    private final GuacdClient guacd;
    private final NodeAgent agent;
    private final PeerChannels peers;
    private final QuotaRepair quotaRepair;
    private final Strangers strangers;
    private final FenceBus fences;
    private final OrphanRecords orphanRecords;
    private final TunnelEndpoint tunnels;
    private final Router router;
    private final AddressBookRuntime addressBook;
    private final DurableStore records;
    private final Housekeeping housekeeping;
    /** Null when the node records nothing. */
    private final Recordings recordings;
    private final RecordingRescue recordingRescue;
    private final Restoration restoration;
    private final HostKeyProbe hostKeyProbe;
    private final JumpHosts jumpHosts;
    private final HostKeySettings hostKeySettings;
    private final Router relayRouter;
    private final AtomicInteger port = new AtomicInteger();
    private final AtomicInteger relayPort = new AtomicInteger();
    private final List<String> deployments = new CopyOnWriteArrayList<>();

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
        SessionRouter sessionRouter = new SessionRouter(registry, clock, config.cluster().heartbeat(),
                config.cluster().staleAfter(), config.capacity().placementChoices(),
                SessionRouter.threadLocalRandom(), config.nodeId());
        SessionQuota quota = new SessionQuota(runtime.userSessions());
        SessionDirectory directory = new SessionDirectory(runtime.sessions());
        SessionDrives drives = new SessionDrives(vertx, config.drives());
        this.events = new SessionEvents();
        events.subscribe(SessionEvents.countingEnds(metrics::ended));
        events.subscribe(SessionEvents.onStop(drives::remove));
        AccountabilitySettings accountability = config.records();
        this.records = DurableStore.open(accountability.store());
        // whenever the runtime stops (a shutdown, a start that failed after this point, a node killed in a test), the
        // store lets go of its threads, its pool and its database file
        // (on a thread of its own: closing waits for the outbox's writer, and this may run on an event loop)
        runtime.stopped().onComplete(stopped -> closeRecordsOffTheLoops());
        if (!records.configured()) {
            LOG.warn("no database (GW_DB_URL): this cluster keeps no session history, no audit log and no reports, "
                    + "and when every node has stopped, every API token and sign-in is forgotten");
        }
        metrics.bindRecords(records);
        events.subscribe(new SessionHistory(records, clock)::onEvent);
        AuditTrail audit = new AuditTrail(records, config.nodeId(), clock);
        ClientAddresses clientAddresses = new ClientAddresses(accountability.trustedProxies());
        SessionLedger ledger = new SessionLedger(config.nodeId(), directory, registry, quota, events, clock);
        this.host = new SessionHost(vertx, config.nodeId(), new SessionHost.Limits(config.pendingTimeout(),
                config.maxSessionDuration(), config.finishedRetention(), config.reattachGrace(),
                config.shares().maxWatchers()), ledger, drives, clock);
        this.guacd = new GuacdClient(vertx, config.guacdHost(), config.guacdPort(), config.guacdConnectTimeout(),
                config.guacdStepTimeout());
        long guacdLimitMb = config.capacity().guacdLimitMb();
        HostProbe machine = guacdLimitMb > 0 ? HostProbe.inGuacdContainer(environment.host(), guacdLimitMb)
                : environment.host();
        this.agent = new NodeAgent(vertx, config, registry, runtime.membership(), machine,
                new GuacdProbe(vertx, config.guacdHost(), config.guacdPort(), config.guacdStepTimeout().toMillis()),
                host, ledger, clock, count -> metrics.repaired(NodeMetrics.Repair.UNHELD_RESERVATIONS, count),
                new HeartbeatRead(registry, config.nodeId(), SessionRouter.threadLocalRandom(),
                        sessionRouter::placements));
        agent.onRead(sessionRouter::offer); // the heartbeat's read is the router's snapshot too
        TokenService tokens = new TokenService(adminToken, runtime.tokens(), runtime.tokenNames(), clock,
                records.configured() ? new DurableTokens(records, clock) : TokenLedger.NONE);
        LoginSessions logins = new LoginSessions(runtime.logins(), config.oidc().idle(), config.oidc().absolute(),
                clock);
        People people = new People(records, runtime.people(), runtime.groupRoles(), logins, tokens, clock);
        this.hostKeySettings = config.hostKeys();
        this.hostKeyProbe = new HostKeyProbe(hostKeySettings.order(), hostKeySettings.probeTimeout(),
                hostKeySettings.learnsOrder());
        HostKeyTrust hostKeys = new HostKeyTrust(vertx, config.hostKeys().policy(), hostKeyProbe,
                runtime.hostKeys(), records, (creator, address, key) -> audit.record(AuditTrail.Actor.of(creator,
                        address), "ssh.host_key_trust", key.host() + ":" + key.port(), "success",
                        "trusted on first use: " + key.fingerprint() + " (session " + key.sessionId() + ")"), clock);
        this.jumpHosts = new JumpHosts(hostKeys, hostKeySettings.probeTimeout());
        events.subscribe(SessionEvents.onStop(jumpHosts::closeChain));
        this.restoration = new Restoration(vertx, records, List.of(new Restoration.Part("API tokens",
                tokens::restore), new Restoration.Part("people's standings and group mappings", people::restore),
                new Restoration.Part("trusted SSH host keys", hostKeys::restore)), runtime.restored(),
                config.nodeId(), clock);
        NodeMessenger messenger = new NodeMessenger(vertx, config.cluster().peerTimeout().toMillis());
        // A ticket is worth what the token or login that proved its holder is worth when it is redeemed.
        TicketService tickets = new TicketService(config.nodeId(), TicketService.TICKET_PREFIX,
                TicketSpending.issuers(messenger, TicketService.TICKET_PREFIX), credential ->
                credential.startsWith(LoginSessions.CREDENTIAL_PREFIX) ? logins.identityOf(credential)
                        : tokens.byHash(credential), clock);
        // Relay tickets carry no credential to check again: the node issues one for an identity it just checked.
        TicketService relayTickets = new TicketService(config.nodeId(), TicketService.RELAY_PREFIX,
                TicketSpending.issuers(messenger, TicketService.RELAY_PREFIX),
                credential -> CompletableFuture.completedFuture(Optional.empty()), clock);
        Authenticator auth = new Authenticator(vertx, tokens, logins);
        this.quotaRepair = new QuotaRepair(vertx, runtime.membership(), registry, quota, QuotaRepair.ROUND,
                count -> metrics.repaired(NodeMetrics.Repair.QUOTA_PLACES, count));
        this.strangers = new Strangers(runtime.membership(), config.cluster().strangerGrace(),
                config.cluster().expelStrangers(), clock);
        this.fences = runtime.fences() == null ? null : new FenceBus(vertx, runtime.fences());
        this.orphanRecords = new OrphanRecords(vertx, config.nodeId(), directory, host, ledger, runtime.membership(),
                messenger, OrphanRecords.ROUND, count -> metrics.repaired(NodeMetrics.Repair.ORPHAN_RECORDS, count));
        agent.onView(orphanRecords::seen);
        this.peers = new PeerChannels(messenger, config.nodeId());
        SessionTargets targets = new SessionTargets(vertx, config.targets());
        OpenEndpoint openEndpoint = new OpenEndpoint(vertx, config.nodeId(), targets, config.userLimits(), host,
                quota, drives, jumpHosts, messenger);
        this.recordings = Recordings.start(vertx, config.nodeId(), config.recordings(), records, metrics.registry(),
                clock);
        if (recordings != null) {
            host.recorders(recordings);
            events.subscribe(recordings::onEvent);
        }
        RecordingPolicy recordingPolicy = new RecordingPolicy(config.recordings());
        SessionCreation creation = new SessionCreation(vertx, targets, hostKeys, config.userLimits(),
                config.costModel(), sessionRouter, registry, quota, directory, openEndpoint, metrics,
                () -> accountability.auditRequired() && !records.state().writable() ? "the audit log cannot be "
                        + "written now and this cluster requires it (GW_AUDIT_REQUIRED): no new session starts until "
                        + "the database answers" : recordings != null && recordings.required() ? recordings.refusal()
                        : null);
        this.housekeeping = new Housekeeping(vertx, records, config.nodeId(), registry::summaries,
                runtime.membership()::isCoordinator, accountability.historyRetention(),
                accountability.auditRetention(), clock);
        SessionService sessions = new SessionService(vertx, config.nodeId(), directory, host, ledger, openEndpoint);
        ShareService shares = new ShareService(vertx, config.nodeId(), runtime.shares(), directory, host, tickets,
                messenger, config.shares(), clock);
        metrics.bind(() -> host.live().stream().map(LocalSession::info).toList(), agent::lastPublished);
        metrics.bindStrangers(strangers, s -> s.current().size(), Strangers::expulsions);
        openEndpoint.serve();
        shares.serve();
        TicketSpending.serve(messenger, config.nodeId(), TicketService.TICKET_PREFIX, tickets);
        TicketSpending.serve(messenger, config.nodeId(), TicketService.RELAY_PREFIX, relayTickets);
        Thumbnails thumbnails = config.thumbnailInterval().isZero() ? null : new Thumbnails(vertx, config.nodeId(),
                host, guacd, messenger, config.thumbnailInterval(), clock);
        if (thumbnails != null) {
            thumbnails.serve();
            events.subscribe(SessionEvents.onStop(thumbnails::forget));
        }
        this.addressBook = AddressBookRuntime.start(config.addressBook(), config.nodeId(), runtime, metrics, clock);
        AddressBookRuntime book = addressBook;
        this.recordingRescue = recordings == null ? null : new RecordingRescue(vertx, records, recordings,
                config.nodeId(), registry::summaries, runtime.membership()::isCoordinator,
                () -> book == null ? CompletableFuture.completedFuture(Map.of())
                        : RecordingLimits.perEntry(book.cache()), clock);
        if (addressBook != null) {
            openEndpoint.addressBook(addressBook.cache().source());
        }

        this.router = ApiRouter.create(vertx, config.maxBodyBytes());
        new AuditedCalls(audit, clientAddresses).mount(router);
        new HealthApi(config.nodeId(), new Readiness(agent, runtime, config.guacdHost() + ":" + config.guacdPort(),
                addressBook == null ? null : addressBook.cache(), records, accountability.auditRequired()))
                .mount(router);
        SessionsApi sessionsApi = new SessionsApi(creation, sessions, metrics, config.pendingTimeout().toSeconds(),
                clientAddresses, config.sessionBanner(), recordingPolicy);
        sessionsApi.mount(router, auth);
        new ReportsApi(vertx, records).mount(router, auth);
        new TokensApi(vertx, tokens, tickets).mount(router, auth);
        new SharesApi(shares).mount(router, auth);
        new MeApi(vertx, config.oidc().enabled(), addressBook != null, config.sessionBanner(), tokens,
                logins).mount(router, auth);
        new PeopleApi(vertx, people).mount(router, auth);
        new HostKeysApi(vertx, hostKeys, targets, sessions).mount(router, auth);
        new ThumbnailsApi(sessions, thumbnails).mount(router, auth);
        LivePlayback livePlayback = recordings == null ? null : new LivePlayback(config.nodeId(), recordings,
                messenger, config.cluster().peerTimeout().toMillis());
        if (livePlayback != null) {
            livePlayback.serve();
        }
        new RecordingsApi(vertx, records, recordings, livePlayback, clock).mount(router, auth);
        if (config.oidc().enabled()) {
            new OidcSignIn(vertx, config.oidc(), runtime.loginFlows(), logins, clock, audit, clientAddresses, people)
                    .mount(router);
        }
        new ClusterApi(vertx, registry, agent, quota, strangers).mount(router, auth);
        AddressBookApi addressBookApi = addressBook == null ? null : new AddressBookApi(vertx, addressBook.cache(),
                creation, config.pendingTimeout().toSeconds(), clientAddresses, recordingPolicy);
        if (addressBookApi != null) {
            addressBookApi.mount(router, auth);
            new CredentialsApi(vertx, addressBook.cache()).mount(router, auth);
        }
        new QuickConnectApi(sessionsApi, addressBookApi, config.oidc().enabled()).mount(router, auth);
        this.tunnels = new TunnelEndpoint(vertx, config.nodeId(), config.security(), auth, tickets, relayTickets,
                host, directory, registry, guacd, new OriginPolicy(config.allowedOrigins()),
                config.defaultTimezone().getId(), config.connections().stallTimeout(), shares, metrics);
        router.get("/metrics").handler(ctx -> ctx.response()
                .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8").end(metrics.scrape()));
        tunnels.mount(router);
        // The browser pages: the client at /, the capacity view at /admin.html (tokens never appear in URLs
        // sent to the server: they travel in the fragment and then live in sessionStorage). GET and HEAD only, so
        // a wrong method on an API path still answers 405 rather than falling through to a static 404. Mounted
        // last: the handler looks a file up for every GET it sees, on Vert.x's blocking pool, which cost every
        // WebSocket attach several milliseconds while the tunnel came after it (bench/RESULTS.md, issue 26).
        router.route("/*").method(HttpMethod.GET).method(HttpMethod.HEAD).handler(StaticHandler.create("webroot").setCachingEnabled(false));
        this.relayRouter = Router.router(vertx);
        tunnels.mountRelay(relayRouter);
    }

    /** Where this node tells each step of its sessions' lives: subscribe here to hear them. */
    public SessionEvents sessionEvents() {
        return events;
    }

    /** Starts a node on this machine, joining its cluster; {@code adminToken} is the bootstrap admin token. */
    public static Future<GatewayNode> start(NodeConfig config, String adminToken) {
        return start(config, adminToken, Environment.system());
    }

    /**
     * The returned future is bound to no event loop: when the start fails, Vert.x is closed before the caller hears
     * of it, and an answer delivered on one of its stopped loops would never arrive (a second node with a duplicate
     * id used to hang there, with a RejectedExecutionException on a dead loop).
     */
    public static Future<GatewayNode> start(NodeConfig config, String adminToken, Environment environment) {
        NodeMetrics metrics = new NodeMetrics();
        Promise<GatewayNode> started = Promise.promise();
        ClusterRuntime.start(config, metrics).onComplete(up -> {
            if (up.failed()) {
                started.fail(up.cause());
                return;
            }
            ClusterRuntime runtime = up.result();
            Future<GatewayNode> ready;
            try {
                GatewayNode node = new GatewayNode(runtime, config, adminToken, metrics, environment);
                // Fences first: a node that serves before it knows of the latest writes believes old copies.
                ready = (node.fences == null ? Future.<Void>succeededFuture() : node.fences.start())
                        // a cluster started from nothing has its tokens back before it answers a call
                        .compose(ignored -> node.restoration.start())
                        .compose(ignored -> node.listen())
                        .compose(ignored -> node.agent.start(node.httpPort(), config.security().relayPublicPort() > 0
                                ? config.security().relayPublicPort() : node.relayPort.get()))
                        .map(ignored -> {
                            node.quotaRepair.start();
                            node.orphanRecords.start();
                            node.housekeeping.start(environment.clock().instant());
                            if (node.recordingRescue != null) {
                                node.recordingRescue.start();
                            }
                            node.learnKeyOrder(1);
                            if (runtime.isClustered()) {
                                node.peers.serve();
                                node.agent.onView(node.peers::seen);
                                node.agent.onView(node.strangers::proven);
                                node.agent.readWholeWhile(node.strangers::anyUnproven);
                                if (node.fences != null) {
                                    node.agent.onRejoin(() -> node.fences.relearn());
                                }
                                node.strangers.start(node.vertx, config.cluster().heartbeat());
                            }
                            return node;
                        });
            } catch (RuntimeException | LinkageError e) { // a missing class too: a start that fails must say so
                ready = Future.failedFuture(e);
            }
            ready.onComplete(result -> {
                if (result.succeeded()) {
                    started.complete(result.result());
                } else {
                    runtime.close().onComplete(closed -> started.fail(result.cause()));
                }
            });
        });
        return started.future();
    }

    private Future<Void> listen() {
        ConnectionSettings connections = config.connections();
        HttpServerOptions options = tunnelListener(config.httpHost(), config.httpPort(), connections.idleTimeout());
        // Port 0 (tests) cannot be shared by several servers: each would get its own port.
        int instances = config.httpPort() == 0 ? 1 : config.eventLoops();
        Future<Void> publicPort = deploy(router, options, new ConnectionGuard(vertx, connections), port, instances);
        if (!runtime.isClustered()) {
            return publicPort;
        }
        // Every relayed WebSocket comes from a peer's address (and proves itself by its certificate): no cap there.
        ConnectionGuard relayGuard = new ConnectionGuard(vertx, new ConnectionSettings(connections.idleTimeout(),
                connections.requestTimeout(), Integer.MAX_VALUE, connections.stallTimeout()));
        return publicPort.compose(ignored -> deploy(relayRouter, relayListenerOptions(), relayGuard,
                relayPort, config.security().relayPort() == 0 ? 1 : config.eventLoops()));
    }

    /**
     * The internal listener other nodes relay WebSockets to: on the cluster address only, apart from the public
     * port, and in a secured cluster mutual TLS against the cluster CA, so that keystrokes cross the network
     * encrypted and nobody without a node certificate can present a relay ticket.
     */
    private HttpServerOptions relayListenerOptions() {
        ClusterSecurity security = config.security();
        HttpServerOptions options = tunnelListener(config.cluster().host() != null ? config.cluster().host()
                : "0.0.0.0", security.relayPort(), config.connections().idleTimeout());
        return security.secured() ? security.mutualTls(options).setClientAuth(ClientAuth.REQUIRED) : options;
    }

    /**
     * A listener for Guacamole WebSockets, public or internal. A connection silent for {@code idle} goes (an idle
     * or half-open socket held by a scanner or a broken client); a live tunnel is never silent that long, since
     * guacamole-common-js pings twice a second and guacd syncs every frame.
     */
    private static HttpServerOptions tunnelListener(String host, int port, Duration idle) {
        return new HttpServerOptions()
                .setHost(host)
                .setPort(port)
                .setIdleTimeout((int) idle.toSeconds())
                .setIdleTimeoutUnit(java.util.concurrent.TimeUnit.SECONDS)
                .setTcpNoDelay(true)
                // No h2c: with it a connection is only handed over (to the guard) once its first bytes arrive.
                .setHttp2ClearTextEnabled(false)
                .setWebSocketSubProtocols(List.of("guacamole"))
                // Guacamole's images are PNG/JPEG already; deflate would cost CPU and ~100s of KB per socket.
                .setPerMessageWebSocketCompressionSupported(false)
                .setPerFrameWebSocketCompressionSupported(false);
    }

    private Future<Void> deploy(Router routes, HttpServerOptions options, ConnectionGuard guard,
            AtomicInteger boundPort, int instances) {
        return vertx.deployVerticle(() -> new HttpVerticle(routes, options, guard, boundPort),
                        new DeploymentOptions().setInstances(instances))
                .onSuccess(deployments::add)
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

    public OrphanRecords orphanRecords() {
        return orphanRecords;
    }

    public ClusterRuntime runtime() {
        return runtime;
    }

    /**
     * A graceful stop: the node drains (takes no new session), waits up to {@code grace} for its sessions to end,
     * ends the rest, leaves the registry, stops serving, and leaves the cluster so that partitions migrate.
     */
    public Future<Void> shutdown(Duration grace) {
        // Not bound to an event loop: the last step stops them all, and the caller must still hear of the end. A
        // runtime stopped meanwhile (a crash in a test, a member Hazelcast shut down) ends the steps still waiting on
        // its timers, which will never fire: the stop is over then.
        Promise<Void> done = Promise.promise();
        Promise<Void> loopsDone = Promise.promise();
        runtime.stopped().onComplete(ignored -> done.tryComplete());
        if (!grace.isZero()) {
            // Users hear it first: their page can tell them to save their work, and when it will end.
            String notice = Notices.shuttingDown(grace.toSeconds()).encode();
            host.tellAll(notice);
            tunnels.tellRelayed(notice);
        }
        agent.setDrain(config.nodeId(), true).otherwiseEmpty()
                .compose(ignored -> host.whenIdle(grace))
                .compose(idle -> {
                    if (!idle) {
                        LOG.warn("node {}: drain grace over, ending {} sessions", config.nodeId(), host.live().size());
                    }
                    host.terminateAll(GuacamoleStatus.SERVER_BUSY, "the gateway node is shutting down");
                    // Every end gives its reservation and quota place back through the cluster: before leaving it.
                    return host.whenIdle(Duration.ofSeconds(10));
                })
                // the recordings of those sessions are uploaded and completed, or left for the cluster to complete
                .compose(ignored -> recordings == null ? Future.succeededFuture()
                        : recordings.finishAll(Duration.ofSeconds(30)))
                .compose(ignored -> {
                    peers.stop();
                    strangers.stop(vertx);
                    if (fences != null) {
                        fences.stop();
                    }
                    quotaRepair.stop();
                    orphanRecords.stop();
                    housekeeping.stop();
                    if (recordingRescue != null) {
                        recordingRescue.stop();
                    }
                    restoration.stop();
                    return agent.stop().otherwiseEmpty();
                })
                .compose(ignored -> Future.join(deployments.stream().map(vertx::undeploy).toList()))
                .eventually(tunnels::close)
                .eventually(guacd::close)
                .onComplete(ignored -> loopsDone.complete());
        // The last facts (every session's end) are written, or spooled, before the node goes. From here on nothing is
        // bound to an event loop: a crash may stop the loops meanwhile (a test kills a node that is stopping), and a
        // thread completing a promise bound to a stopped loop has the rejection thrown at it, out of its task.
        loopsDone.future()
                .eventually(this::closeRecordsOffTheLoops)
                .onComplete(ignored -> {
                    if (addressBook != null) {
                        addressBook.close();
                    }
                    runtime.close().onComplete(closed -> {
                        if (closed.succeeded()) {
                            done.tryComplete();
                        } else {
                            done.tryFail(closed.cause());
                        }
                    });
                });
        return done.future();
    }

    /**
     * Learns the order guacd's libssh2 asks for host keys in (what the host-key probe must follow), unless it was
     * given or keys are not checked. A guacd not up yet is asked again each minute, ten times at most; probes wait only
     * for the first try.
     */
    private void learnKeyOrder(int attempt) {
        if (!hostKeySettings.learnsOrder()) {
            return;
        }
        GuacdKeyOrder.learn(vertx, guacd, Duration.ofSeconds(10)).onComplete(learnt -> {
            if (learnt.succeeded()) {
                hostKeyProbe.follow(learnt.result());
                LOG.info("guacd asks SSH servers for host keys in this order, which the node's probe follows: {}",
                        String.join(",", learnt.result()));
            } else if (attempt < 10) {
                LOG.warn("could not learn the order guacd asks SSH servers for host keys in ({}); reading keys in {} "
                        + "meanwhile (GW_SSH_HOST_KEY_ORDER), trying again in a minute", learnt.cause().getMessage(),
                        String.join(",", hostKeySettings.order()));
                vertx.setTimer(60_000, id -> learnKeyOrder(attempt + 1));
            } else {
                LOG.warn("gave up learning guacd's host-key order; reading keys in {}: set GW_SSH_HOST_KEY_ORDER to "
                        + "guacd's libssh2's if first sessions are refused", String.join(",", hostKeySettings.order()));
            }
            hostKeyProbe.ordered();
        });
    }

    private Future<Void> closeRecordsOffTheLoops() {
        return DaemonThreads.offTheLoops("farmgate-store-close", () -> {
            closeRecords();
            return null;
        });
    }

    /** Blocks for as long as the outbox takes to write or spool what it holds (at most about ten seconds). */
    private void closeRecords() {
        if (recordings != null) {
            recordings.close();
        }
        try {
            jumpHosts.close();
            hostKeyProbe.close();
        } catch (IOException e) {
            LOG.debug("the node's SSH clients did not close cleanly: {}", e.getMessage());
        }
        records.close();
    }

    /** What completes the recordings of departed nodes; null when this node records nothing. */
    public RecordingRescue recordingRescue() {
        return recordingRescue;
    }

    /** Where history and the audit log are kept: for tests that read them directly. */
    public DurableStore records() {
        return records;
    }

    /** Stops at once: no drain, no wait. */
    public Future<Void> stop() {
        return shutdown(Duration.ZERO);
    }

    /** One HTTP server on this verticle's event loop. */
    private static final class HttpVerticle extends VerticleBase {

        private final Router router;
        private final HttpServerOptions options;
        private final ConnectionGuard guard;
        private final AtomicInteger port;
        private HttpServer server;

        HttpVerticle(Router router, HttpServerOptions options, ConnectionGuard guard, AtomicInteger port) {
            this.router = router;
            this.options = options;
            this.guard = guard;
            this.port = port;
        }

        @Override
        public Future<?> start() {
            Promise<Void> started = Promise.promise();
            server = vertx.createHttpServer(options)
                    .connectionHandler(connection -> {
                        OneBodyLength.install(connection, options);
                        guard.opened(connection);
                    })
                    .requestHandler(OneBodyLength.requests(guard.requests(router)));
            server.listen().onSuccess(s -> {
                port.set(s.actualPort());
                started.complete();
            }).onFailure(e -> started.fail(new IOException("cannot listen on " + options.getHost() + ":"
                    + options.getPort() + ": " + e.getMessage(), e)));
            return started.future();
        }

        @Override
        public Future<?> stop() {
            return server == null ? Future.succeededFuture() : server.close();
        }
    }
}
