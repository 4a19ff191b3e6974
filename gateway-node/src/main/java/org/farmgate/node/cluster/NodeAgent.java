package org.farmgate.node.cluster;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import org.farmgate.model.CostModel;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.ReservationBook;
import org.farmgate.node.config.NodeConfig;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.node.session.SessionHost;
import org.farmgate.node.session.SessionLedger;
import org.farmgate.router.registry.HeartbeatRead;
import org.farmgate.router.registry.Liveness;
import org.farmgate.router.registry.NodeRegistry;
import org.farmgate.router.registry.UnheldReservations;
import org.farmgate.router.store.Membership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's presence in the cluster. It registers the node, refreshes its load every heartbeat (host memory,
 * guacd's PSS and health, CPU, cost model), and, when it is the cluster's coordinator, removes the entries of
 * members that left and marks their sessions lost. Measurements that read files run on a worker thread.
 */
public final class NodeAgent {

    private static final Logger LOG = LoggerFactory.getLogger(NodeAgent.class);
    /**
     * How long a reservation may wait for the session it stands for to reach this node (the open request's timeout,
     * with room), timed by this node: older ones it does not hold were orphaned by a router that died, and go.
     */
    static final Duration IN_FLIGHT = Duration.ofSeconds(30);

    private final Vertx vertx;
    private final NodeConfig config;
    private final NodeRegistry registry;
    private final Membership membership;
    private final HostProbe hostProbe;
    private final GuacdProbe guacdProbe;
    private final SessionHost host;
    private final SessionLedger ledger;
    private final CostCalibrator calibrator;
    private final Clock clock;
    private final UnheldReservations unheld = new UnheldReservations(IN_FLIGHT);
    private final Liveness liveness;
    private final HeartbeatRead reads;
    private volatile BooleanSupplier readWhole = () -> false;
    private volatile boolean refused;

    private volatile NodeAddress address;
    private volatile NodeLimits limits;
    private volatile int sharers = 1;
    private final List<Consumer<List<NodeLoad>>> viewListeners = new CopyOnWriteArrayList<>();
    private final List<BiConsumer<List<NodeLoad>, Boolean>> readListeners = new CopyOnWriteArrayList<>();
    private final List<Runnable> rejoinListeners = new CopyOnWriteArrayList<>();
    private volatile boolean guacdHealthy;
    private volatile boolean guacdUnmeasured;
    private volatile long guacdBaselineMb = -1;
    private volatile NodeLoad lastPublished;
    /** Whether this node is drained, as it last heard: from its own entry, or from the node that drained it. */
    private volatile boolean drainSeen;
    private MessageConsumer<Boolean> drains;
    private long heartbeatTimer = -1;
    private long probeTimer = -1;
    private Context context;
    private final IntConsumer reservationsGivenUp;

    public NodeAgent(Vertx vertx, NodeConfig config, NodeRegistry registry, Membership membership,
            HostProbe hostProbe, GuacdProbe guacdProbe, SessionHost host, SessionLedger ledger, Clock clock,
            IntConsumer reservationsGivenUp, HeartbeatRead reads) {
        this.reservationsGivenUp = reservationsGivenUp;
        this.vertx = vertx;
        this.config = config;
        this.registry = registry;
        this.membership = membership;
        this.hostProbe = hostProbe;
        this.guacdProbe = guacdProbe;
        this.host = host;
        this.ledger = ledger;
        this.calibrator = new CostCalibrator(config.costModel(), config.capacity().calibrate(),
                config.capacity().calibrationMinFactor(), config.capacity().calibrationMaxFactor());
        this.clock = clock;
        this.liveness = new Liveness(config.cluster().staleAfter());
        this.reads = reads;
    }

    /** Measures, registers the node (refusing an id another live member uses), and starts the heartbeat. */
    public Future<Void> start(int httpPort, int relayPort) {
        context = vertx.getOrCreateContext();
        drains = vertx.eventBus().consumer(drainAddress(config.nodeId()), message -> drainSeen = message.body());
        String advertised = config.cluster().advertiseHost() != null ? config.cluster().advertiseHost()
                : config.cluster().host() != null ? config.cluster().host() : "127.0.0.1";
        address = new NodeAddress(membership.localMemberId(), advertised, httpPort, relayPort);
        return vertx.executeBlocking(hostProbe::read, false).compose(reading -> {
            long margin = config.capacity().marginMb() >= 0 ? config.capacity().marginMb()
                    : Math.max(256, reading.totalMb() / 20);
            long budget = config.capacity().budgetMb() >= 0 ? config.capacity().budgetMb()
                    : Math.max(0, reading.availableMb() - margin);
            limits = new NodeLimits(budget, margin, config.maxSessions(), config.capacity().maxSessionsPerCore());
            LOG.info("node {}: memory budget {} MB, margin {} MB, host {} of {} MB available", config.nodeId(), budget,
                    margin, reading.availableMb(), reading.totalMb());
            return guacdProbe.probe();
        }).compose(healthy -> {
            guacdHealthy = healthy;
            return claimNodeId(Duration.ofSeconds(config.cluster().memberTimeout().toSeconds() + 3));
        }).compose(ignored -> heartbeat()).onSuccess(ignored -> {
            membership.onMemberRemoved(member -> context.runOnContext(v -> sweepDeparted()));
            heartbeatTimer = vertx.setPeriodic(config.cluster().heartbeat().toMillis(), id -> heartbeat()
                    .onFailure(error -> LOG.warn("heartbeat failed: {}", error.getMessage())));
            probeTimer = vertx.setPeriodic(config.capacity().guacdProbeInterval().toMillis(), id -> probeGuacd());
        });
    }

    /**
     * A node id belongs to one member. An entry left by this node's previous life (a crash, a quick restart) is
     * cleared once its member is gone; an id a live member uses is refused.
     */
    private Future<Void> claimNodeId(Duration patience) {
        return await(registry.get(config.nodeId())).compose(existing -> {
            if (existing == null || existing.address().memberId().equals(address.memberId())) {
                return Future.succeededFuture();
            }
            if (!membership.memberIds().contains(existing.address().memberId())) {
                LOG.warn("node {}: clearing the entry of its previous run (member {})", config.nodeId(),
                        existing.address().memberId());
                return await(registry.remove(config.nodeId())).compose(removed -> markLost(config.nodeId()))
                        .mapEmpty();
            }
            if (patience.isNegative() || patience.isZero()) {
                return Future.failedFuture(new IllegalStateException("node id '" + config.nodeId()
                        + "' is in use by the node at " + existing.address().httpHost() + ":"
                        + existing.address().httpPort() + " (cluster member " + existing.address().memberId()
                        + "); give every node its own GW_NODE_ID"));
            }
            // The previous run's member may not have been declared dead yet.
            return timer(1000).compose(v -> claimNodeId(patience.minusSeconds(1)));
        });
    }

    /**
     * One refresh of this node's entry, under the member id the node has now: Hazelcast gives a member a new one
     * when it merges back after a split or a pause, and an entry under the old one would be swept as departed. After
     * such a change the node says again what it holds, since the other side may have marked it lost meanwhile.
     */
    public Future<Void> heartbeat() {
        String member = membership.localMemberId();
        boolean rejoined = !member.equals(address.memberId());
        if (rejoined) {
            LOG.warn("node {}: now cluster member {} (was {}): the cluster merged or took it back; registering again "
                    + "with its {} sessions", config.nodeId(), member, address.memberId(), host.live().size());
            address = new NodeAddress(member, address.httpHost(), address.httpPort(), address.relayPort());
            rejoinListeners.forEach(Runnable::run);
        }
        return vertx.executeBlocking(hostProbe::read, false).compose(reading -> {
            SessionHost.Usage usage = host.activeUsage(config.costModel());
            sayWhetherGuacdIsMeasured(reading);
            if (host.live().isEmpty() && reading.guacdConnections() == 0 && reading.guacdPssMb() >= 0) {
                // guacd with no session, pending ones included, and none of its connections' processes (one may
                // come before the node knows its session, or outlive its end by a few seconds): its idle cost.
                guacdBaselineMb = reading.guacdPssMb();
            }
            int shared = reading.hostId() == null ? 1 : sharers;
            HostMeasurements measurements = new HostMeasurements(share(reading.totalMb(), shared),
                    share(reading.availableMb(), shared), reading.guacdPssMb(), guacdBaselineMb, guacdHealthy,
                    reading.cpuCount(), reading.loadAverage(), clock.instant(), reading.hostId(), shared);
            calibrator.observe(usage.sessions(), usage.chargedMb(), measurements.guacdSessionsPssMb());
            ReservationBook held = host.reservations();
            // The drain flag is the entry's, set by whoever drained the node; the one here is what the node last
            // saw, written only over an entry put back from an old copy (see NodeRegistry's Publish).
            NodeLoad fresh = new NodeLoad(config.nodeId(), address, limitsFor(shared), calibrator.current(),
                    measurements, held, drainSeen, clock.instant());
            Set<String> givenUp = unheld.expired(lastPublished, held.entries().keySet(), clock.millis());
            if (!givenUp.isEmpty()) {
                reservationsGivenUp.accept(givenUp.size());
            }
            return await(registry.publish(fresh, givenUp))
                    .compose(published -> {
                        // No entry back: refused, or the update was not believed where it ran (a member without
                        // this cluster's key, or one that lacks ours).
                        boolean accepted = published != null;
                        if (!accepted && !refused) {
                            LOG.warn("node {}: the cluster declared member {} gone; the node takes no new session "
                                    + "until it rejoins", config.nodeId(), address.memberId());
                        }
                        refused = !accepted;
                        // a ranked placement needs every node, the coordinator's sweep judges every node's beat
                        boolean wholeNeeded = membership.isCoordinator()
                                || config.capacity().placementChoices() == 0 || readWhole.getAsBoolean();
                        return await(reads.next(wholeNeeded, published)).map(view -> {
                            observe(view, reading.hostId());
                            return published;
                        });
                    });
        }).map(published -> {
            lastPublished = published;
            if (published != null) {
                drainSeen = published.drainRequested();
            }
            if (rejoined && !refused) {
                host.reassertAll();
            }
            return null;
        });
    }

    /**
     * What a heartbeat's read of the registry tells: the router's snapshot, every read; and from a read of every
     * node, how many nodes share this host (their memory is split between them), the coordinator's sweep, and
     * whoever else follows the whole registry.
     */
    private void observe(HeartbeatRead.View read, String hostId) {
        readListeners.forEach(listener -> listener.accept(read.nodes(), read.whole()));
        if (!read.whole()) {
            return;
        }
        List<NodeLoad> view = read.nodes();
        if (hostId != null) {
            sharers = (int) Math.max(1, view.stream().filter(node -> hostId.equals(node.measurements().hostId()))
                    .count());
        }
        if (membership.isCoordinator()) {
            sweep(view);
        }
        viewListeners.forEach(listener -> listener.accept(view));
    }

    /** Called when the node finds itself a member under a new id: the cluster merged after a split, or took it back. */
    public void onRejoin(Runnable listener) {
        rejoinListeners.add(listener);
    }

    /**
     * Called with every node's summary after a heartbeat that read them all: every beat on the coordinator or with
     * a ranked placement, every {@link HeartbeatRead#WHOLE_EVERY}-th beat otherwise.
     */
    public void onView(Consumer<List<NodeLoad>> listener) {
        viewListeners.add(listener);
    }

    /** Makes every heartbeat read every node while {@code condition} holds. */
    public void readWholeWhile(BooleanSupplier condition) {
        readWhole = condition;
    }

    /** Called after every heartbeat with what it read, a sample of the nodes or all of them (the flag). */
    public void onRead(BiConsumer<List<NodeLoad>, Boolean> listener) {
        readListeners.add(listener);
    }

    /**
     * guacd runs but its memory cannot be read (another user's processes: the node needs guacd's user, or to share
     * its process namespace as that user): the placement then works from the cost model alone and guacd's figures
     * read -1. Said once when it starts and once when it ends, not on every heartbeat.
     */
    private void sayWhetherGuacdIsMeasured(HostProbe.Reading reading) {
        boolean blind = reading.guacdProcesses() > 0 && reading.guacdPssMb() < 0;
        if (blind != guacdUnmeasured) {
            guacdUnmeasured = blind;
            if (blind) {
                LOG.warn("node {}: guacd runs ({} processes) but its memory cannot be read (/proc/<pid>/smaps_rollup "
                        + "of another user): the placement cannot check the cost model against guacd; run the node "
                        + "as guacd's user (in a pod: the same runAsUser, with shareProcessNamespace)",
                        config.nodeId(), reading.guacdProcesses());
            } else {
                LOG.info("node {}: guacd's memory can be read again", config.nodeId());
            }
        }
    }

    private static long share(long mb, int shared) {
        return mb < 0 ? mb : mb / shared;
    }

    /** The limits for this node's share of the host: a budget or margin derived from the host is split too. */
    private NodeLimits limitsFor(int shared) {
        NodeLimits whole = limits;
        long budget = config.capacity().budgetMb() >= 0 ? whole.budgetMb() : whole.budgetMb() / shared;
        long margin = config.capacity().marginMb() >= 0 ? whole.marginMb() : whole.marginMb() / shared;
        return new NodeLimits(budget, margin, whole.maxSessions(), whole.maxSessionsPerCore());
    }

    private void probeGuacd() {
        guacdProbe.probe().onSuccess(healthy -> {
            if (healthy != guacdHealthy) {
                LOG.warn("node {}: guacd at {}:{} is {}", config.nodeId(), config.guacdHost(), config.guacdPort(),
                        healthy ? "answering again" : "not answering; the node takes no new sessions");
                guacdHealthy = healthy;
                heartbeat();
            }
        });
    }

    /**
     * The coordinator's clean-up: an entry goes, with its reservations, and its live sessions turn lost, when its
     * member is no longer in the cluster <em>and</em> its beat has stopped, as this coordinator has watched it. A
     * node that merged back, and beats under its new member id, is never swept for the old one; the removal is
     * conditional on the entry the coordinator judged, so a heartbeat that lands in between wins. It looks at all
     * entries, not only the member that just left, so that a departure seen while another coordinator was leaving
     * too is not missed.
     */
    private void sweepDeparted() {
        if (membership.isCoordinator()) {
            await(registry.summaries()).onSuccess(this::sweep);
        }
    }

    private void sweep(List<NodeLoad> nodes) {
        Set<String> members = membership.memberIds();
        long now = clock.millis();
        liveness.observe(nodes, now);
        nodes.stream()
                .filter(node -> !members.contains(node.address().memberId()))
                .filter(node -> !liveness.isFresh(node.nodeId(), now))
                .forEach(node -> await(registry.depart(node)).onSuccess(departed -> {
                    if (departed != null) {
                        LOG.warn("node {} left the cluster (member {}): its sessions are lost, its reservations "
                                + "freed", node.nodeId(), node.address().memberId());
                        markLost(node.nodeId());
                    }
                }));
    }

    private Future<Integer> markLost(String nodeId) {
        return await(ledger.lost(nodeId)).map(List::size);
    }

    /**
     * Drains or undrains a node, and tells that node at once (over the event bus, which only nodes speak on): it is
     * the one that rewrites its entry if a member on the cluster network puts back an old copy, and must not write
     * back a drain flag older than the admin's.
     */
    public Future<Boolean> setDrain(String nodeId, boolean drain) {
        return await(registry.setDrain(nodeId, drain)).onSuccess(found -> {
            if (found) {
                vertx.eventBus().publish(drainAddress(nodeId), drain);
            }
        });
    }

    private static String drainAddress(String nodeId) {
        return NodeMessenger.address(nodeId, "drained");
    }

    public NodeLoad lastPublished() {
        return lastPublished;
    }

    public CostModel costModel() {
        return calibrator.current();
    }

    /** Stops refreshing and takes the node's entry out, so that nothing more is placed here. */
    public Future<Void> stop() {
        if (drains != null) {
            drains.unregister();
        }
        if (heartbeatTimer >= 0) {
            vertx.cancelTimer(heartbeatTimer);
        }
        if (probeTimer >= 0) {
            vertx.cancelTimer(probeTimer);
        }
        NodeLoad last = lastPublished;
        Future<NodeLoad> gone = last != null ? await(registry.depart(last)) : await(registry.remove(config.nodeId()));
        return gone.<Void>mapEmpty().eventually(guacdProbe::close);
    }

    private Future<Void> timer(long ms) {
        return Future.future(promise -> vertx.setTimer(ms, id -> promise.complete()));
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Future.fromCompletionStage(stage, context != null ? context : vertx.getOrCreateContext());
    }
}
