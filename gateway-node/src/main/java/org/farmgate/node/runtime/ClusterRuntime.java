package org.farmgate.node.runtime;

import com.hazelcast.config.AdvancedNetworkConfig;
import com.hazelcast.config.ClassFilter;
import com.hazelcast.config.Config;
import com.hazelcast.config.InterfacesConfig;
import com.hazelcast.config.JavaSerializationFilterConfig;
import com.hazelcast.config.ListenerConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.ServerSocketEndpointConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.IOException;
import java.io.Serializable;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.node.accountability.Restoration;
import org.farmgate.node.auth.Login;
import org.farmgate.node.auth.TokenRecord;
import org.farmgate.node.auth.TokenService;
import org.farmgate.node.config.ClusterSecurity;
import org.farmgate.node.config.ClusterSettings;
import org.farmgate.node.config.NodeConfig;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.hostkey.TrustedKey;
import org.farmgate.node.people.MappedRole;
import org.farmgate.node.people.Standing;
import org.farmgate.node.share.Share;
import org.farmgate.node.signin.PendingLogin;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.addressbook.AddressBookCache;
import org.farmgate.router.seal.FenceHandoff;
import org.farmgate.router.seal.Fences;
import org.farmgate.router.seal.Seal;
import org.farmgate.router.seal.SealSerializers;
import org.farmgate.router.seal.SealedMap;
import org.farmgate.router.store.HazelcastMembership;
import org.farmgate.router.store.HazelcastSharedMap;
import org.farmgate.router.store.LocalMembership;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Membership;
import org.farmgate.router.store.SharedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's Vert.x and its view of the cluster: a clustered Vert.x on a Hazelcast member (TCP-IP or Kubernetes
 * DNS discovery, multicast off, failure detection in seconds, split-brain protection on the maps that must not
 * fork), or, for a node configured to run alone, a plain Vert.x with local maps. Everything above this class sees
 * only {@link SharedMap}s and a {@link Membership}.
 *
 * <p><b>Who stops the member, and why not Vert.x.</b> This class creates the Hazelcast member and hands it to
 * Vert.x's cluster manager, rather than letting the manager create it, so that the manager never shuts it down.
 * {@code HazelcastClusterManager.leave} holds the manager's monitor while it shuts down a member it owns, which takes
 * Hazelcast's lifecycle lock; Hazelcast holds that lock while it tells its lifecycle listeners (the manager among
 * them, whose {@code stateChanged} takes the monitor) that it merges after a split, shuts down or terminates. A
 * SIGTERM's leave meeting a split's merge, or a crash's terminate meeting a leave, then waited on each other forever
 * (seen in the suite). Here the leave only unregisters, and the member is shut down afterwards from a thread that
 * holds no lock of Vert.x's: the two locks are only ever taken in Hazelcast's order, lifecycle lock first.
 * {@code ShutdownLockOrderTest} replays the merge against a leave.
 *
 * <p>A stop happens once: {@link #close()} and {@link #terminateAbruptly()} called again, or one after the other,
 * join the stop under way (a crash still drops the member at once, whatever else is stopping).
 */
public final class ClusterRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterRuntime.class);

    private static final String QUORUM = "farmgate-quorum";
    /** The member attribute vertx-hazelcast knows a Vert.x node by (its {@code NODE_ID_ATTRIBUTE}). */
    static final String VERTX_NODE_ID = "__vertx.nodeId";

    private final Vertx vertx;
    private final HazelcastInstance hazelcast;
    private final ExecutorService blocking;
    private final Membership membership;
    private final SharedMap<String, NodeLoad> nodes;
    private final SharedMap<String, SessionInfo> sessions;
    private final SharedMap<String, TokenRecord> tokens;
    private final SharedMap<String, Restoration.Restored> restored;
    private final SharedMap<String, TokenService.NameClaim> tokenNames;
    private final SharedMap<String, Share> shares;
    private final SharedMap<String, Login> logins;
    private final SharedMap<String, PendingLogin> loginFlows;
    private final SharedMap<String, SessionQuota.Places> userSessions;
    private final SharedMap<String, AddressBook> addressBooks;
    private final SharedMap<String, AddressBookCache.Lease> addressBookLeases;
    private final SharedMap<String, Standing> people;
    private final SharedMap<String, MappedRole> groupRoles;
    private final SharedMap<String, TrustedKey> hostKeys;
    private final Fences fences;
    private final Seal seal;
    private final SealedMap.RejectionCounter rejections;
    /** What this member lends the updates and queries it runs on the entries it owns. */
    private final MemberContext member;
    private final AtomicReference<Future<Void>> stopping = new AtomicReference<>();
    private final Promise<Void> stopped = Promise.promise();

    private ClusterRuntime(Vertx vertx, HazelcastInstance hazelcast, Seal seal, Fences fences,
            SealedMap.RejectionCounter rejections) {
        this.vertx = vertx;
        this.hazelcast = hazelcast;
        this.fences = fences;
        this.seal = seal;
        this.rejections = rejections;
        if (hazelcast == null) {
            blocking = null;
            member = MemberContext.NONE;
            membership = new LocalMembership("local-" + UUID.randomUUID());
        } else {
            // Hazelcast offers queries only blocking: a few threads of their own, never an event loop.
            blocking = Executors.newFixedThreadPool(8, DaemonThreads.named("farmgate-cluster-query"));
            member = new MemberContext(hazelcast.getUserContext());
            membership = new HazelcastMembership(hazelcast);
        }
        nodes = open(ClusterMaps.NODES);
        sessions = open(ClusterMaps.SESSIONS);
        tokens = open(ClusterMaps.TOKENS);
        restored = open(ClusterMaps.RESTORED);
        tokenNames = open(ClusterMaps.TOKEN_NAMES);
        shares = open(ClusterMaps.SHARES);
        logins = open(ClusterMaps.LOGINS);
        loginFlows = open(ClusterMaps.LOGIN_FLOWS);
        userSessions = open(ClusterMaps.USER_SESSIONS);
        addressBooks = open(ClusterMaps.ADDRESSBOOK);
        addressBookLeases = open(ClusterMaps.ADDRESSBOOK_LEASE);
        people = open(ClusterMaps.PEOPLE);
        groupRoles = open(ClusterMaps.GROUP_ROLES);
        hostKeys = open(ClusterMaps.HOST_KEYS);
    }

    /**
     * One of our maps: local for a node alone; on Hazelcast, sealed with the cluster key in a secured cluster, so that
     * no record a member without the key wrote is ever believed, plain in an insecure one.
     */
    private <V extends Serializable> SharedMap<String, V> open(ClusterMaps.ClusterMap<V> declared) {
        if (hazelcast == null) {
            return new LocalSharedMap<>();
        }
        if (seal == null) {
            return new HazelcastSharedMap<>(hazelcast.<String, V>getMap(declared.name()), blocking, member);
        }
        return new SealedMap<>(declared.name(), new HazelcastSharedMap<>(hazelcast.<String, Object>getMap(
                declared.name()), blocking, member), seal, fences, declared.policy(), rejections);
    }

    /** Starts Vert.x, joining the cluster unless the node is configured to run alone. */
    public static Future<ClusterRuntime> start(NodeConfig config, NodeMetrics metrics) {
        VertxOptions options = new VertxOptions().setEventLoopPoolSize(config.eventLoops());
        VertxMetricsFactory metricsFactory = metrics.vertxMetrics(options);
        ClusterSettings cluster = config.cluster();
        if (!cluster.enabled()) {
            return Future.succeededFuture(new ClusterRuntime(Vertx.builder().with(options).withMetrics(metricsFactory)
                    .build(), null, null, null, null));
        }
        EventBusOptions eventBus = options.getEventBusOptions();
        if (cluster.host() != null) {
            eventBus.setHost(cluster.host());
        }
        ClusterSecurity security = config.security();
        Seal seal = security.secured() ? new Seal(security.clusterKeys()) : null;
        Fences fences = seal == null ? null : new Fences();
        eventBus.setPort(security.eventBusPort());
        if (security.eventBusPublicPort() > 0) {
            eventBus.setClusterPublicPort(security.eventBusPublicPort());
        }
        if (security.secured()) {
            // Credentials travel between nodes here: mutual TLS against the cluster CA, a peer without a node
            // certificate gets no byte through.
            security.mutualTls(eventBus).setClientAuth(ClientAuth.REQUIRED);
            security.initialiseTls();
        } else if (cluster.expectsOthers()) {
            LOG.warn("GW_CLUSTER_INSECURE: the event bus and relays between nodes are in clear text and "
                    + "unauthenticated; anyone on the cluster network can read credentials and act as a node");
        }
        if (cluster.advertiseHost() != null) {
            eventBus.setClusterPublicHost(cluster.advertiseHost());
        }
        Config hazelcastConfig = hazelcastConfig(cluster);
        if (seal != null) {
            // Entries this member owns are updated and queried with its own seal, lent to what runs on them there.
            SealedMap.lend(new MemberContext(hazelcastConfig.getUserContext()), seal, fences);
            // Partitions that move take their fences along (those of maps whose owner decides are known nowhere else).
            hazelcastConfig.addListenerConfig(new ListenerConfig(new FenceHandoff(seal, fences)));
            metrics.expectRejections(ClusterMaps.ALL.stream().map(ClusterMaps.ClusterMap::name).toList());
        }
        // What Vert.x's manager reads to know the member as a Vert.x node when it is handed one (its documented way
        // of running on a Hazelcast instance of the application's own).
        hazelcastConfig.getMemberAttributeConfig().setAttribute(VERTX_NODE_ID, UUID.randomUUID().toString());
        return DaemonThreads.offTheLoops("farmgate-join", () -> Hazelcast.newHazelcastInstance(hazelcastConfig))
                .compose(member -> {
                    if (cluster.host() == null) {
                        // The address the manager would have given the event bus for a member of its own.
                        eventBus.setHost(member.getCluster().getLocalMember().getAddress().getHost());
                    }
                    return Vertx.builder().with(options).withMetrics(metricsFactory)
                            .withClusterManager(new HazelcastClusterManager(member)).buildClustered()
                            .map(vertx -> new ClusterRuntime(vertx, member, seal, fences, metrics::rejectedRecord))
                            .recover(e -> DaemonThreads.offTheLoops("farmgate-leave", () -> {
                                member.getLifecycleService().terminate(); // ours to stop, Vert.x did not start
                                return null;
                            }).transform(ignored -> Future.<ClusterRuntime>failedFuture(e)));
                })
                .recover(e -> Future.failedFuture(new IOException("cannot join the cluster (member port "
                        + cluster.port() + ", event bus port " + security.eventBusPort() + " on "
                        + (cluster.host() == null ? "Hazelcast's pick of address" : cluster.host()) + "): "
                        + e.getMessage(), e)));
    }

    static Config hazelcastConfig(ClusterSettings cluster) {
        Config config = ConfigUtil.loadConfig(); // Vert.x's own maps for the event bus, then ours
        config.setClusterName(cluster.name());
        config.setProperty("hazelcast.logging.type", "slf4j");
        config.setProperty("hazelcast.phone.home.enabled", "false");
        // Nobody reads Hazelcast's own metrics (ours are at /metrics), and collecting them was a quarter of an idle
        // member's CPU. -Dhazelcast.metrics.enabled=true brings them back for Management Center.
        config.getMetricsConfig().setEnabled(false);
        // We leave the cluster ourselves, after draining: no shutdown hook of Hazelcast's own.
        config.setProperty("hazelcast.shutdownhook.enabled", "false");
        config.setProperty("hazelcast.heartbeat.interval.seconds", "1");
        config.setProperty("hazelcast.max.no.heartbeat.seconds", String.valueOf(cluster.memberTimeout().toSeconds()));
        config.setProperty("hazelcast.graceful.shutdown.max.wait", "60");
        // A split (a partition, a paused JVM declared dead) heals when the members find each other again: look every
        // 10 s rather than after Hazelcast's default 5 minutes, since the nodes on the small side take no sessions
        // meanwhile (their entries went stale for the rest).
        config.setProperty("hazelcast.merge.first.run.delay.seconds", "10");
        config.setProperty("hazelcast.merge.next.run.delay.seconds", "10");
        // A revoked token must stop working on every node within milliseconds, not a 10 s invalidation batch.
        config.setProperty("hazelcast.map.invalidation.batch.enabled", "false");

        // Members only: the advanced network has no client endpoint unless one is configured, so a plain Hazelcast
        // client that knows the cluster name has no port to talk to. The member port binds the cluster address
        // alone (bind.any would take every interface whatever the interfaces say).
        AdvancedNetworkConfig network = config.getAdvancedNetworkConfig().setEnabled(true);
        ServerSocketEndpointConfig member = new ServerSocketEndpointConfig();
        member.setPort(cluster.port()).setPortAutoIncrement(false);
        if (cluster.host() != null) {
            InterfacesConfig interfaces = new InterfacesConfig().setEnabled(true).addInterface(cluster.host());
            member.setInterfaces(interfaces);
            member.setPublicAddress(cluster.host() + ":" + cluster.port());
            config.setProperty("hazelcast.local.localAddress", cluster.host());
            config.setProperty("hazelcast.socket.bind.any", "false");
        }
        network.setMemberEndpointConfig(member);
        JoinConfig join = network.getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        if (cluster.kubernetesServiceDns() != null) {
            join.getKubernetesConfig().setEnabled(true).setProperty("service-dns", cluster.kubernetesServiceDns());
        } else {
            join.getTcpIpConfig().setEnabled(true).setMembers(cluster.members());
        }
        // What our maps send between members most (entry updates, sealed records) in Hazelcast's stream form: Java
        // serialization's class descriptors around every update were a tenth of a member's CPU.
        HazelcastSharedMap.serializers().forEach(config.getSerializationConfig()::addSerializerConfig);
        SealSerializers.serializers().forEach(config.getSerializationConfig()::addSerializerConfig);
        // A peer's bytes are never turned into arbitrary classes: Java deserialization takes our own records and
        // entry processors, the JDK's value types, and Vert.x's cluster records, nothing else.
        config.getSerializationConfig().setJavaSerializationFilterConfig(new JavaSerializationFilterConfig()
                .setWhitelist(new ClassFilter().addPrefixes("org.farmgate.", "io.vertx.spi.cluster.hazelcast.")
                        .addPackages("java.lang", "java.util", "java.time", "java.net", "java.math")
                        .addPrefixes("java.util.concurrent.", "java.util.ImmutableCollections", "java.lang.invoke.")));

        if (cluster.minMembers() > 1) {
            config.addSplitBrainProtectionConfig(new SplitBrainProtectionConfig(QUORUM, true, cluster.minMembers()));
        }
        String quorum = cluster.minMembers() > 1 ? QUORUM : null;
        ClusterMaps.ALL.forEach(map -> config.addMapConfig(map.config(quorum)));
        return config;
    }

    public Vertx vertx() {
        return vertx;
    }

    /** The Hazelcast member, or null for a node running alone. */
    public HazelcastInstance hazelcast() {
        return hazelcast;
    }

    public boolean isClustered() {
        return hazelcast != null;
    }

    /** Whether this node is still a member (Hazelcast can shut itself down, e.g. after a split it cannot heal). */
    public boolean isRunning() {
        return hazelcast == null || hazelcast.getLifecycleService().isRunning();
    }

    /** What this node knows of the latest writes of sealed entries; null unless the cluster is secured. */
    public Fences fences() {
        return fences;
    }

    public Membership membership() {
        return membership;
    }

    public SharedMap<String, NodeLoad> nodes() {
        return nodes;
    }

    public SharedMap<String, SessionInfo> sessions() {
        return sessions;
    }

    public SharedMap<String, TokenRecord> tokens() {
        return tokens;
    }

    public SharedMap<String, Standing> people() {
        return people;
    }

    public SharedMap<String, MappedRole> groupRoles() {
        return groupRoles;
    }

    public SharedMap<String, TrustedKey> hostKeys() {
        return hostKeys;
    }

    public SharedMap<String, Restoration.Restored> restored() {
        return restored;
    }

    public SharedMap<String, TokenService.NameClaim> tokenNames() {
        return tokenNames;
    }

    public SharedMap<String, Share> shares() {
        return shares;
    }

    public SharedMap<String, Login> logins() {
        return logins;
    }

    public SharedMap<String, PendingLogin> loginFlows() {
        return loginFlows;
    }

    public SharedMap<String, SessionQuota.Places> userSessions() {
        return userSessions;
    }

    public SharedMap<String, AddressBook> addressBooks() {
        return addressBooks;
    }

    public SharedMap<String, AddressBookCache.Lease> addressBookLeases() {
        return addressBookLeases;
    }

    /**
     * Drops out of the cluster at once, as a crashed host would: no migration, no goodbye. For fault-injection
     * (tests and the bench's fault tools); a node stops with {@link #close()}. Blocks the caller while Hazelcast
     * terminates: not for an event loop.
     */
    public Future<Void> terminateAbruptly() {
        if (hazelcast != null) {
            hazelcast.getLifecycleService().terminate();
        }
        return close();
    }

    /**
     * Stops Vert.x, then leaves the cluster gracefully (partitions migrate to the others), once however often it is
     * called. Runs on a thread of its own: a close called on one of this Vert.x's event loops would complete on that
     * same loop, which the close stops, and nobody would hear of it; and the member is shut down holding no lock of
     * Vert.x's (see the class comment).
     */
    public Future<Void> close() {
        Promise<Void> closed = Promise.promise();
        if (!stopping.compareAndSet(null, closed.future())) {
            return stopping.get();
        }
        DaemonThreads.offTheLoops("farmgate-close", () -> {
            try {
                vertx.close().await();
            } finally {
                if (hazelcast != null) {
                    hazelcast.getLifecycleService().shutdown(); // a no-op after a terminate
                }
                if (blocking != null) {
                    blocking.shutdownNow();
                }
            }
            return null;
        }).<Void>mapEmpty().onComplete(closed).onComplete(ignored -> stopped.tryComplete());
        return closed.future();
    }

    /** Completes once Vert.x and the member are stopped, by a close or a crash: nothing scheduled on them runs. */
    public Future<Void> stopped() {
        return stopped.future();
    }
}
