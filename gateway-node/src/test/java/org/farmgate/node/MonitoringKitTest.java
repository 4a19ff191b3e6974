package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.farmgate.model.Json;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.client.WsClient;
import org.junit.jupiter.api.Test;

/**
 * What an operator installs beside the nodes (deploy/prometheus, deploy/grafana): the alert rules pass promtool and
 * their own unit tests, and the rules and the dashboard name only metrics a node exports, so a renamed metric or a
 * typo cannot leave a panel empty or an alert silent.
 */
class MonitoringKitTest {

    private static final Path DEPLOY = Path.of("..", "deploy");
    /** Our metrics and Vert.x's; Prometheus's own {@code up} is not a node's. */
    private static final Pattern METRIC = Pattern.compile("\\b(?:farmgate|vertx)_[a-z_]+[a-z]");

    @Test
    void theAlertRulesPassPromtoolAndTheirUnitTests() throws Exception {
        assumeTrue(new File("/usr/bin/promtool").canExecute(), "promtool (Debian package prometheus) is missing");
        promtool("check", "rules", "farmgate-alerts.yml");
        promtool("test", "rules", "farmgate-alerts.test.yml");
    }

    @Test
    void theDashboardAndTheAlertsNameOnlyMetricsANodeExports() throws Exception {
        JsonNode dashboard = Json.mapper().readTree(Files.readString(DEPLOY.resolve("grafana/farmgate-dashboard.json")));
        assertTrue(dashboard.get("panels").size() > 10);
        Set<String> named = new TreeSet<>();
        named.addAll(metricsIn(Files.readString(DEPLOY.resolve("grafana/farmgate-dashboard.json"))));
        named.addAll(metricsIn(Files.readString(DEPLOY.resolve("prometheus/farmgate-alerts.yml"))));
        assertTrue(named.size() > 15, named::toString);

        Set<String> exported = new TreeSet<>();
        try (TestCluster cluster = TestCluster.start(2, n -> Map.of())) {
            // A session's whole life, so that what is counted only once something happens has happened.
            SessionInfo session = cluster.node(1).sshSession();
            try (WsClient client = cluster.node(1).attach(session)) {
                client.awaitInstruction("sync");
            }
            assertEquals(204, cluster.node(1).request("DELETE", "/api/sessions/" + session.sessionId(),
                    TestNode.ADMIN, null).statusCode());
            for (TestNode node : cluster.nodes) {
                exported.addAll(namesIn(node.request("GET", "/metrics", null, null).body()));
            }
        }
        Set<String> missing = new TreeSet<>(named);
        missing.removeAll(exported);
        assertEquals(Set.of(), missing, "named by the dashboard or the alerts, exported by no node");
    }

    private static Set<String> metricsIn(String text) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = METRIC.matcher(text);
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }

    /** The names of the series in a scrape, without their labels. */
    private static Set<String> namesIn(String scrape) {
        Set<String> names = new TreeSet<>();
        for (String line : scrape.split("\n")) {
            if (!line.isEmpty() && !line.startsWith("#")) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    private static void promtool(String... args) throws Exception {
        String[] command = new String[args.length + 1];
        command[0] = "promtool";
        System.arraycopy(args, 0, command, 1, args.length);
        Process process = new ProcessBuilder(command).directory(DEPLOY.resolve("prometheus").toFile())
                .redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "promtool did not finish");
        assertEquals(0, process.exitValue(), out);
    }
}
