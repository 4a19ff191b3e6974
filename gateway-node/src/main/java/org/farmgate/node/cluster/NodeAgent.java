package org.farmgate.node.cluster;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.CostModel;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.node.config.NodeConfig;
import org.farmgate.node.session.SessionHost;
import org.farmgate.node.session.SessionLedger;
import org.farmgate.router.registry.NodeRegistry;
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
     * How long a reservation may exist before the session it stands for reaches this node (the open request's
     * timeout, with room): older ones the node does not hold were orphaned by a router that died, and go.
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

    private volatile NodeAddress address;
    private volatile NodeLimits limits;
    private volatile boolean guacdHealthy;
    private volatile long guacdBaselineMb = -1;
    private volatile NodeLoad lastPublished;
    private long heartbeatTimer = -1;
    private long probeTimer = -1;
    private Context context;

    public NodeAgent(Vertx vertx, NodeConfig config, NodeRegistry registry, Membership membership,
            HostProbe hostProbe, GuacdProbe guacdProbe, SessionHost host, SessionLedger ledger, Clock clock) {
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
    }

    /** Measures, registers the node (refusing an id another live member uses), and starts the heartbeat. */
    public Future<Void> start(int httpPort, int relayPort) {
        context = vertx.getOrCreateContext();
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
                        + "' is in use by cluster member " + existing.address().memberId()
                        + "; give every node its own GW_NODE_ID"));
            }
            // The previous run's member may not have been declared dead yet.
            return timer(1000).compose(v -> claimNodeId(patience.minusSeconds(1)));
        });
    }

    /** One refresh of this node's entry. */
    public Future<Void> heartbeat() {
        return vertx.executeBlocking(hostProbe::read, false).compose(reading -> {
            SessionHost.Usage usage = host.activeUsage(config.costModel());
            if (usage.sessions().isEmpty() && reading.guacdPssMb() >= 0) {
                guacdBaselineMb = reading.guacdPssMb(); // guacd with no session: its idle cost
            }
            HostMeasurements measurements = new HostMeasurements(reading.totalMb(), reading.availableMb(),
                    reading.guacdPssMb(), guacdBaselineMb, guacdHealthy, reading.cpuCount(), reading.loadAverage(),
                    clock.instant());
            calibrator.observe(usage.sessions(), usage.chargedMb(), measurements.guacdSessionsPssMb());
            NodeLoad fresh = new NodeLoad(config.nodeId(), address, limits, calibrator.current(), measurements,
                    host.reservations(), false, clock.instant());
            return await(registry.publish(fresh, clock.instant().minus(IN_FLIGHT)))
                    .compose(v -> await(registry.get(config.nodeId())));
        }).map(published -> {
            lastPublished = published;
            if (membership.isCoordinator()) {
                sweepDeparted();
            }
            return null;
        });
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
     * The coordinator's clean-up: every entry whose member is no longer in the cluster goes, with its reservations,
     * and its live sessions turn lost. It looks at all entries, not only the member that just left, so that a
     * departure seen while another coordinator was leaving too is not missed.
     */
    private void sweepDeparted() {
        if (!membership.isCoordinator()) {
            return;
        }
        Set<String> members = membership.memberIds();
        await(registry.summaries()).onSuccess(nodes -> nodes.stream()
                .filter(node -> !members.contains(node.address().memberId()))
                .forEach(node -> {
                    LOG.warn("node {} left the cluster: its sessions are lost, its reservations freed", node.nodeId());
                    await(registry.remove(node.nodeId())).compose(removed -> markLost(node.nodeId()));
                }));
    }

    private Future<Integer> markLost(String nodeId) {
        return await(ledger.lost(nodeId)).map(List::size);
    }

    public Future<Boolean> setDrain(String nodeId, boolean drain) {
        return await(registry.setDrain(nodeId, drain));
    }

    public NodeLoad lastPublished() {
        return lastPublished;
    }

    public CostModel costModel() {
        return calibrator.current();
    }

    /** Stops refreshing and takes the node's entry out, so that nothing more is placed here. */
    public Future<Void> stop() {
        if (heartbeatTimer >= 0) {
            vertx.cancelTimer(heartbeatTimer);
        }
        if (probeTimer >= 0) {
            vertx.cancelTimer(probeTimer);
        }
        return await(registry.remove(config.nodeId())).<Void>mapEmpty().eventually(guacdProbe::close);
    }

    private Future<Void> timer(long ms) {
        return Future.future(promise -> vertx.setTimer(ms, id -> promise.complete()));
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Future.fromCompletionStage(stage, context != null ? context : vertx.getOrCreateContext());
    }
}
