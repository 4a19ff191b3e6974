package org.farmgate.bench.sim;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.CostModel;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.TicketService;
import org.farmgate.node.cluster.OrphanRecords;
import org.farmgate.node.cluster.QuotaRepair;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.SessionRouter;
import org.farmgate.router.registry.HeartbeatRead;
import org.farmgate.router.registry.Liveness;
import org.farmgate.router.registry.NodeRegistry;
import org.farmgate.router.registry.UnheldReservations;
import org.farmgate.router.store.SharedMap;

/**
 * One simulated node: the real router, registry, quota and directory over its member's view of the simulated maps,
 * a host whose memory the sessions it holds really use, and the heartbeat {@code NodeAgent} runs (publish the node's
 * load, have its entry back with the answer, read every node's summary or a sample of them with the real
 * {@link HeartbeatRead}; the coordinator sweeps departed members with
 * {@link Liveness} as {@code NodeAgent.sweep} does), and the scans of {@code OrphanRecords} and
 * {@code QuotaRepair}. What the node agent does with a JVM's files and guacd's processes is left out: it sends
 * nothing.
 */
final class SimNode {

    /** guacd with no session. */
    static final long GUACD_BASELINE_MB = 20;
    /** Whoever the browser's tickets are for: the simulation does not look. */
    private static final Identity BROWSER = Identity.person("someone", "someone", null, Role.ADMIN, Set.of());
    /** How long an ended session's record stays readable: {@code GW_SESSION_RETENTION_SECS}'s default. */
    private static final long RETENTION_MICROS = 300_000_000L;

    final int index;
    final String nodeId;
    final NodeAddress address;
    final NodeRegistry registry;
    final SessionRouter router;
    final SessionQuota quota;
    final SessionDirectory directory;
    private final SharedMap<String, TicketService.Ticket> tickets;
    private final SimCluster cluster;
    /** A ticket's issuer answers with it (identity, credential, expiry), framed. */
    private final int ticketAnswerBytes;
    private final VirtualTime time;
    private final SimNetwork network;
    private final long totalMb;
    private final NodeLimits limits;
    private final Duration heartbeat;
    private final Liveness liveness;
    private final Map<String, Reservation> held = new HashMap<>();
    private long usedMb;
    private final boolean offerView;
    private final int choices;
    /** The heartbeat's read as {@code NodeAgent} makes it; null for a design whose beat reads every summary. */
    private final HeartbeatRead reads;
    /** As {@code NodeAgent}: what it does not hold goes after the open request's patience (its IN_FLIGHT). */
    private final UnheldReservations unheld = new UnheldReservations(Duration.ofSeconds(30));
    private NodeLoad lastPublished;

    SimNode(int index, SimCluster cluster, long totalMb, NodeLimits limits, int choices, boolean offerView,
            boolean sampledRead, SplittableRandom random) {
        this.offerView = offerView;
        this.choices = choices;
        this.index = index;
        this.nodeId = "node-" + index;
        this.address = new NodeAddress("member-" + index, "10.0." + (index / 250) + "." + (index % 250), 8080);
        this.time = cluster.time;
        this.network = cluster.network;
        this.totalMb = totalMb;
        this.limits = limits;
        this.heartbeat = cluster.heartbeat;
        this.liveness = new Liveness(cluster.heartbeat.multipliedBy(4));
        this.registry = new NodeRegistry(cluster.nodes.from(index));
        this.quota = new SessionQuota(cluster.userSessions.from(index));
        this.directory = new SessionDirectory(cluster.sessions.from(index));
        this.tickets = cluster.tickets.from(index);
        this.cluster = cluster;
        this.ticketAnswerBytes = cluster.sizes.of(new TicketService.Ticket(BROWSER, null, time.instant()))
                + Sizes.EVENT_BUS_FRAMING_BYTES;
        this.router = new SessionRouter(registry, time, heartbeat, heartbeat.multipliedBy(4), choices,
                random.split(), cluster.design.preferLocal() ? nodeId : null);
        // split whatever the design, so that designs alike below the sample's size run alike draw for draw
        HeartbeatRead sampler = new HeartbeatRead(registry, nodeId, random.split(), router::placements);
        this.reads = sampledRead ? sampler : null;
    }

    boolean alive() {
        return network.isAlive(index);
    }

    /** Beats from {@code phaseMicros} on, every heartbeat, while the node lives; scans as the node does. */
    void startBeating(long phaseMicros) {
        time.after(phaseMicros, this::beat);
        time.after(phaseMicros, () -> scan(0));
    }

    /**
     * Every {@link OrphanRecords#ROUND} the coordinator reads every live record and tells each node the ids the
     * directory calls live on it (before: each node read its own); every {@link QuotaRepair#ROUND} the coordinator
     * reads every reservation and every quota place.
     */
    private void scan(int round) {
        if (!alive()) {
            return;
        }
        boolean coordinator = network.members().get(0) == index;
        if (cluster.design.censusPerNode()) {
            directory.liveOn(nodeId);
        } else if (coordinator) {
            directory.liveByNode().thenAccept(byNode -> {
                for (int other : network.members()) {
                    if (other != index) {
                        int ids = byNode.getOrDefault(cluster.members[other].nodeId, List.of()).size();
                        network.send(index, other, "eventbus.orphan-census", Sizes.EVENT_BUS_FRAMING_BYTES + 2
                                + ids * Sizes.SESSION_ID_IN_LIST_BYTES);
                    }
                }
            });
        }
        long every = OrphanRecords.ROUND.toNanos() / 1000;
        boolean quotaRound = round % (QuotaRepair.ROUND.toNanos() / 1000 / every) == 0;
        if (quotaRound && coordinator) {
            registry.reservedSessions();
            quota.places();
        }
        time.after(every, () -> scan(round + 1));
    }

    private void beat() {
        if (!alive()) {
            return;
        }
        NodeLoad fresh = load();
        Set<String> expired = unheld.expired(lastPublished, held.keySet(), time.millis());
        registry.publish(fresh, expired)
                .thenCompose(own -> {
                    lastPublished = own;
                    if (reads == null) {
                        return registry.summaries().thenApply(all -> new HeartbeatRead.View(all, true));
                    }
                    return reads.next(choices == 0 || network.members().get(0) == index, own);
                })
                .thenAccept(this::observe);
        time.after(heartbeat.toNanos() / 1000, this::beat);
    }

    NodeLoad load() {
        HostMeasurements measured = new HostMeasurements(totalMb, totalMb - GUACD_BASELINE_MB - usedMb,
                GUACD_BASELINE_MB + usedMb, GUACD_BASELINE_MB, true, 8, 1.0, time.instant());
        return new NodeLoad(nodeId, address, limits, CostModel.MEASURED_GUACD_1_6, measured,
                ReservationBook.of(held.values()), false, time.instant());
    }

    /**
     * What the heartbeat's read is for: the router's snapshot (as {@code GatewayNode} wires it), and the
     * coordinator's sweep; the lowest-numbered member is the coordinator, as Hazelcast's oldest member is.
     */
    private void observe(HeartbeatRead.View read) {
        if (!alive()) {
            return;
        }
        if (offerView) {
            router.offer(read.nodes(), read.whole());
        }
        if (network.members().get(0) != index || !read.whole()) {
            return;
        }
        long now = time.millis();
        liveness.observe(read.nodes(), now);
        for (NodeLoad node : read.nodes()) {
            int member = Integer.parseInt(node.address().memberId().substring("member-".length()));
            if (!network.isMember(member) && !liveness.isFresh(node.nodeId(), now)) {
                registry.depart(node);
            }
        }
    }

    /**
     * The browser's ticket, asked of the node that took its create ({@code issuer}) and brought here by its WebSocket.
     * Today's {@code TicketService} holds it on its issuer: spending it is nothing when this node issued it, else one
     * request to the issuer and its answer on the event bus. Before issue 26 it was a store in the tickets map with
     * the ticket's life and the removal that spent it (a fence to every node). Keys are made from the session, not a
     * random secret, so that a run depends on its seed alone.
     *
     * @return whether the ticket was spent (its issuer was there to answer)
     */
    CompletionStage<Boolean> ticketRedeemed(SimNode issuer, String sessionId) {
        if (!cluster.design.ticketsInMap()) {
            return network.ask(index, issuer.index, "eventbus.ticket-spend", Sizes.TICKET_SPEND_BYTES,
                    ticketAnswerBytes);
        }
        String key = "ticket-" + sessionId;
        return issuer.tickets.set(key, new TicketService.Ticket(BROWSER, null, time.instant().plus(
                TicketService.LIFETIME)), TicketService.LIFETIME)
                .thenCompose(issued -> tickets.remove(key)).thenApply(spent -> true);
    }

    /** The session was placed here and is pending: its first record is written, as {@code SessionLedger.opened}. */
    void opened(SessionInfo pending) {
        directory.publish(pending);
    }

    /**
     * The browser's WebSocket arrived with its ticket (issued by this node, redeemed here) and guacd's connection
     * opened: the host now spends its memory, the record says active; the reservation turns active with the node's
     * next heartbeat.
     *
     * @return whether the sessions this node holds now cost more than its budget: an over-commit
     */
    boolean open(SessionInfo active, int chargedMb) {
        held.put(active.sessionId(), new Reservation(active.sessionId(), active.sessionType(), chargedMb, true,
                time.instant()));
        usedMb += chargedMb;
        directory.publish(active);
        return usedMb > limits.budgetMb();
    }

    /**
     * The session ended here: its memory, reservation and quota place go, its final record is written, and removed
     * after {@code GW_SESSION_RETENTION_SECS} (its default).
     */
    void end(SessionInfo ended) {
        Reservation gone = held.remove(ended.sessionId());
        if (gone == null) {
            return;
        }
        usedMb -= gone.memoryMb();
        directory.publish(ended);
        registry.release(nodeId, ended.sessionId());
        quota.release(ended.ownerId(), ended.sessionId());
        time.after(RETENTION_MICROS, () -> {
            if (alive()) {
                directory.remove(ended);
            }
        });
    }

    long usedMb() {
        return usedMb;
    }

    long totalMb() {
        return totalMb;
    }
}
