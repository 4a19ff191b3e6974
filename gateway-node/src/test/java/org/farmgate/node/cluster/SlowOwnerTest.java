package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.farmgate.node.TestCluster;
import org.farmgate.node.TestNode;
import org.farmgate.router.SessionQuota;
import org.farmgate.testkit.fault.FaultProxy;
import org.farmgate.testkit.fault.Faults;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.Test;

/**
 * The owner answers after the placing node stopped waiting (node 2's event bus is behind 1.5 s of latency, node 1
 * waits 1 s): the session is opened once, on node 2, never a second time on node 1, which the caller is told with
 * a 504. A delete whose answer is late keeps the record of the session that still runs.
 */
@WaitBound
class SlowOwnerTest {

    private static final String CREATE = "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\"}";

    @Test
    void aLateAnswerOpensOneSessionAndALateDeleteKeepsItsRecord() throws Exception {
        Vertx vertx = Vertx.vertx();
        int eventBus = TestNode.freePort();
        FaultProxy slow = FaultProxy.start(vertx, "127.0.0.1", 0, "127.0.0.1", eventBus,
                Faults.NONE.withLatency(Duration.ofMillis(1500), Duration.ZERO)).await(10, TimeUnit.SECONDS);
        // Node 2 has the most room, so it is chosen first; node 1 could take the session too.
        try (TestCluster cluster = TestCluster.start(2, n -> n == 1
                ? Map.of("GW_PEER_TIMEOUT_MS", "1000", "GW_MEMORY_BUDGET_MB", "2000")
                : Map.of("GW_EVENTBUS_PORT", String.valueOf(eventBus),
                        "GW_EVENTBUS_PUBLIC_PORT", String.valueOf(slow.port())))) {
            TestNode one = cluster.node(1);
            TestNode two = cluster.node(2);

            HttpResponse<String> created = one.request("POST", "/api/sessions", TestNode.ADMIN, CREATE);
            assertEquals(504, created.statusCode(), created::body);
            assertTrue(created.body().contains("may still open"), created.body());

            Awaitility.await("node 2 opens the session").atMost(Duration.ofSeconds(10))
                    .until(() -> two.node.sessions().live().size() == 1);
            TimeUnit.SECONDS.sleep(3); // every retried request has arrived by now
            assertEquals(1, two.node.sessions().live().size());
            assertEquals(0, one.node.sessions().live().size(), "never opened a second time elsewhere");
            String id = two.node.sessions().live().iterator().next().id();
            JsonNode records = TestNode.json(one.request("GET", "/api/sessions?all=true", TestNode.ADMIN, null));
            assertEquals(1, records.size(), records::toString);
            assertEquals("node-2", records.get(0).get("node_id").asText());
            SessionQuota quota = new SessionQuota(one.node.runtime().userSessions());
            String user = records.get(0).get("created_by").asText();
            assertEquals(Set.of(id), quota.places().toCompletableFuture().get(10, TimeUnit.SECONDS).get(user));

            HttpResponse<String> lateDelete = one.request("DELETE", "/api/sessions/" + id, TestNode.ADMIN, null);
            assertEquals(504, lateDelete.statusCode(), lateDelete::body);
            // The delete did reach node 2, late: the session ends there, and its record goes with it, once.
            Awaitility.await("the late delete takes effect on its owner").atMost(Duration.ofSeconds(10))
                    .until(() -> two.node.sessions().live().isEmpty());
            Awaitility.await("the quota place is given back").atMost(Duration.ofSeconds(10))
                    .until(() -> quota.places().toCompletableFuture().get().get(user) == null);
        } finally {
            slow.close().await(10, TimeUnit.SECONDS);
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }
}
