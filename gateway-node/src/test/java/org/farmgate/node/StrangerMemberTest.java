package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.testkit.suite.WaitBound;
import org.junit.jupiter.api.Test;

/**
 * A member without the cluster key that joins as a data member owns its share of partitions, and every call on them
 * fails: the nodes answer 503 with Retry-After (never 500), show it to admins as a stranger once its grace is over
 * (in {@code /api/cluster}, whatever the registry's state, and in the metrics), and the coordinator expels it.
 */
@WaitBound
class StrangerMemberTest {

    @Test
    void aStrangerIsAnsweredAroundShownAndExpelled() throws Exception {
        // The calls below create sessions for as long as the stranger stays, which a loaded machine makes long.
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of("GW_CLUSTER_STRANGER_GRACE_SECS", "4",
                "GW_MEMORY_BUDGET_MB", "50000", "GW_MAX_SESSIONS_PER_USER", "100000"))) {
            TestNode one = cluster.node(1);
            String shares = "/api/sessions/" + one.sshSession().sessionId() + "/shares";
            List<String> answers = new ArrayList<>();
            long joined;
            long expelledAfterMs;
            try (KeylessMember stranger = KeylessMember.start(one.node.config().cluster().name(), "127.0.0.1:"
                    + one.node.config().cluster().port(), false, Files.createTempFile("farmgate-stranger", ".log"))) {
                joined = System.nanoTime();
                // While it owns partitions: calls on them are refused as unavailable, and say when to come back.
                while (one.node.runtime().membership().memberIds().contains(stranger.memberId())
                        && System.nanoTime() - joined < 60_000_000_000L) {
                    for (TestNode node : cluster.nodes) {
                        for (String[] call : List.of(new String[] {"GET", "/api/tokens", null},
                                new String[] {"POST", shares, "{}"},
                                new String[] {"POST", "/api/sessions", "{\"hostname\":\"127.0.0.1\"}"})) {
                            long started = System.nanoTime();
                            HttpResponse<String> answer = node.request(call[0], call[1], TestNode.ADMIN, call[2]);
                            answers.add(answer.statusCode() + " (owns " + stranger.owned() + ") in " + (System.nanoTime() - started) / 1_000_000
                                    + " ms");
                            assertTrue(answer.statusCode() < 500 || answer.statusCode() == 503, call[0] + " "
                                    + call[1] + " answered " + answer.statusCode() + " " + answer.body());
                            if (answer.statusCode() == 503) {
                                assertTrue(answer.headers().firstValue("Retry-After").isPresent(), answer.body());
                            }
                        }
                    }
                }
                expelledAfterMs = (System.nanoTime() - joined) / 1_000_000;
                assertTrue(expelledAfterMs < 60_000, "the stranger was not expelled");
            }
            System.out.printf("stranger expelled %d ms after it joined (grace 4 s); answers meanwhile: %s%n",
                    expelledAfterMs, answers);
            assertTrue(answers.stream().anyMatch(answer -> answer.startsWith("503")),
                    "no call met the stranger's partitions: " + answers);
            JsonNode expelled = TestNode.json(cluster.nodes.stream().map(node -> {
                try {
                    return node.request("GET", "/api/cluster", TestNode.ADMIN, null);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }).filter(view -> view.body().contains("expelled_at")).findFirst()
                    .orElseThrow(() -> new AssertionError("no node shows the expelled stranger")));
            assertEquals(1, expelled.get("expelled_strangers").size(), expelled.toString());
            assertTrue(expelled.get("strangers").isEmpty());
            String metrics = one.request("GET", "/metrics", null, null).body()
                    + cluster.node(2).request("GET", "/metrics", null, null).body();
            assertTrue(metrics.contains("farmgate_cluster_strangers_expelled_total 1.0"), "expulsion not counted: "
                    + metrics.lines().filter(line -> line.contains("strangers")).toList());
            TestNode.await(() -> {
                try {
                    return one.request("GET", "/api/tokens", TestNode.ADMIN, null).statusCode() == 200;
                } catch (Exception e) {
                    return false;
                }
            }, "the cluster did not recover once the stranger was out");
            assertEquals(201, one.request("POST", "/api/sessions", TestNode.ADMIN, "{\"hostname\":\"127.0.0.1\"}")
                    .statusCode());
        }
    }
}
