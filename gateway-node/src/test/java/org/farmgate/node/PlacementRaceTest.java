package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * 1000 creates at once, spread over three nodes whose budgets hold exactly 300 sessions: exactly 300 are accepted,
 * no node is charged beyond its budget, the rest get 503 "no capacity".
 */
class PlacementRaceTest {

    @Test
    void racingCreatesNeverOvercommit() throws Exception {
        try (TestCluster cluster = TestCluster.start(3, n -> Map.of("GW_MEMORY_BUDGET_MB", "1000",
                "GW_COST_SSH_MB", "10", "GW_MAX_SESSIONS", "1000", "GW_MAX_SESSIONS_PER_USER", "5000",
                "GW_MAX_MEMORY_MB_PER_USER", "10000000"))) {
            ExecutorService pool = Executors.newFixedThreadPool(64);
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(pool).connectTimeout(Duration.ofSeconds(10)).build();
            AtomicInteger created = new AtomicInteger();
            AtomicInteger refused = new AtomicInteger();
            AtomicInteger other = new AtomicInteger();
            List<CompletableFuture<Void>> calls = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                TestNode node = cluster.nodes.get(i % 3);
                HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port()
                                + "/api/sessions"))
                        .timeout(Duration.ofSeconds(60))
                        .header("Authorization", "Bearer " + TestNode.ADMIN)
                        .POST(HttpRequest.BodyPublishers.ofString("{\"hostname\":\"127.0.0.1\"}")).build();
                calls.add(client.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenAccept(response -> {
                    if (response.statusCode() == 201) {
                        created.incrementAndGet();
                    } else if (response.statusCode() == 503 && response.body().contains("no capacity")) {
                        refused.incrementAndGet();
                    } else {
                        other.incrementAndGet();
                    }
                }));
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
            pool.shutdown();
            assertEquals(0, other.get(), "every answer is 201 or 503 no capacity");
            assertEquals(300, created.get());
            assertEquals(700, refused.get());
            JsonNode view = TestNode.json(cluster.node(2).request("GET", "/api/cluster", TestNode.ADMIN, null));
            int total = 0;
            for (JsonNode node : view.get("nodes")) {
                assertTrue(node.get("memory").get("reserved_mb").asLong() <= 1000, node.toString());
                total += node.get("sessions_total").asInt();
            }
            assertEquals(300, total);
            assertEquals(300, TestNode.json(cluster.node(1).request("GET", "/api/sessions?all=true", TestNode.ADMIN,
                    null)).size());
        }
    }
}
