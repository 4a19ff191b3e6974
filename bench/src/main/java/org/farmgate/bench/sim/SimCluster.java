package org.farmgate.bench.sim;

import java.time.Duration;
import java.util.SplittableRandom;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.auth.TicketService;
import org.farmgate.router.SessionQuota;

/** The simulated cluster's shared parts: the clock, the network and the maps a session's life writes. */
final class SimCluster {

    final VirtualTime time = new VirtualTime();
    final Traffic traffic;
    final Sizes sizes;
    final SimNetwork network;
    final Duration heartbeat;
    final SimMap<NodeLoad> nodes;
    final SimMap<SessionQuota.Places> userSessions;
    final SimMap<SessionInfo> sessions;
    final SimMap<TicketService.Ticket> tickets;
    final ScaleSimulation.Design design;
    final SimNode[] members;

    SimCluster(int size, Duration heartbeat, long latencyMicros, long hostMb, NodeLimits limits,
            ScaleSimulation.Design design, SplittableRandom random) {
        this.heartbeat = heartbeat;
        this.traffic = new Traffic(size);
        this.sizes = SizesOfRealRecords.measure();
        this.network = new SimNetwork(time, traffic, sizes, random.split(), size, latencyMicros);
        // as ClusterMaps declares them: the registry and the quota grant access (fenced), the directory does not; the
        // registry's backup is asynchronous, the others' synchronous; the registry's and the quota's owner decides
        this.nodes = new SimMap<>("nodes", time, network, sizes, true, false);
        if (design.fenceEveryBeat()) {
            nodes.fenceEvery("Publish"); // before issue 26 a heartbeat's write was fenced whatever it changed
        }
        this.userSessions = new SimMap<>("user-sessions", time, network, sizes, true, true);
        if (design.fencesAtOwner()) {
            nodes.ownerDecides();
            userSessions.ownerDecides();
        }
        this.sessions = new SimMap<>("sessions", time, network, sizes, false, true);
        this.tickets = new SimMap<>("tickets", time, network, sizes, true, true);
        this.design = design;
        this.members = new SimNode[size];
        for (int i = 0; i < size; i++) {
            members[i] = new SimNode(i, this, hostMb, limits, design.choices(), design.offerView(),
                    design.sampledRead(), random);
        }
    }
}
