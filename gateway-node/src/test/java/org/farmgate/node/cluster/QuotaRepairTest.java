package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.TestCluster;
import org.farmgate.node.runtime.ClusterRuntime;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.registry.NodeRegistry;
import org.junit.jupiter.api.Test;

/**
 * A quota place whose session no node holds (its placing node died between taking the place and opening the
 * session) is given back by the coordinator's repair on its second sighting, and only that one: the places of
 * sessions that live, on either node, stay.
 */
class QuotaRepairTest {

    @Test
    void anOrphanedPlaceIsGivenBackAndLiveOnesStay() throws Exception {
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of())) {
            SessionInfo one = cluster.node(1).sshSession();
            SessionInfo two = cluster.node(2).sshSession();
            ClusterRuntime runtime = cluster.node(1).node.runtime();
            SessionQuota quota = new SessionQuota(runtime.userSessions());
            String user = one.ownerId();
            quota.tryAcquire(user, "placed-by-a-node-that-died", 17, SessionQuota.Limits.NONE).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            java.util.concurrent.atomic.AtomicInteger repaired = new java.util.concurrent.atomic.AtomicInteger();
            QuotaRepair repair = new QuotaRepair(runtime.vertx(), runtime.membership(),
                    new NodeRegistry(runtime.nodes()), quota, QuotaRepair.ROUND, repaired::addAndGet);

            assertEquals(0, repair.repairOnce().await(10, TimeUnit.SECONDS), "a first sighting gives nothing back");
            assertEquals(1, repair.repairOnce().await(10, TimeUnit.SECONDS));
            assertEquals(Set.of(one.sessionId(), two.sessionId()), quota.places().toCompletableFuture()
                    .get(10, TimeUnit.SECONDS).get(user));
            assertEquals(0, repair.repairOnce().await(10, TimeUnit.SECONDS));
            assertEquals(1, repaired.get(), "what it gave back is counted (farmgate_repairs_total)");
        }
    }
}
