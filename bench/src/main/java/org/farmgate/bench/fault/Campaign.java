package org.farmgate.bench.fault;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.fault.FaultProxy;
import org.farmgate.testkit.fault.Faults;
import org.farmgate.bench.lab.LabNodes;
import org.farmgate.bench.lab.NetnsLab;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.ClusterKeys;
import org.farmgate.testkit.process.NodeProcess;

/**
 * A cluster of node processes, each on a host of its own ({@link NetnsLab}) with its own synthetic guacd, under the
 * load of {@link CampaignLoad}, each node's link to its guacd through a fault proxy; faults are injected by name, and after each the campaign waits until the cluster
 * has converged and every invariant holds, checked from outside through the API and {@code /metrics}:
 * <ol>
 * <li>no live session is marked lost (a session whose WebSocket still echoes is {@code active});</li>
 * <li>every session the directory calls live really relays (it is one the load holds, echoing);</li>
 * <li>no session is open on two nodes (the nodes' own counts add up to the directory's);</li>
 * <li>every node's reservations are the sessions the directory places on it;</li>
 * <li>every user's quota places are that user's live sessions;</li>
 * <li>every reachable node sees the same nodes, the ones that run.</li>
 * </ol>
 * The time from the fault's end until all of them hold is the convergence time; an invariant still broken after
 * {@link #PATIENCE} is a violation.
 */
final class Campaign implements AutoCloseable {

    static final String TOKEN = "campaign-admin-token-0123456789abcdef";
    static final Duration PATIENCE = Duration.ofSeconds(90);
    private static final int HTTP = 8080;

    /** How one fault went. */
    record Outcome(String fault, long convergedMillis, List<String> violations) {
    }

    private final NodeProcess.Launch launch;
    private final NetnsLab lab;
    private final Vertx vertx = Vertx.vertx();
    private final int count;
    private final Path keys;
    private final Path logs;
    private final List<SyntheticGuacd> guacds = new ArrayList<>();
    private final List<Integer> guacdPorts = new ArrayList<>();
    /** The link from each node to its guacd: a fault proxy, so that it can be slowed, stalled and cut. */
    private final List<FaultProxy> links = new ArrayList<>();
    private final List<Integer> linkPorts = new ArrayList<>();
    private final NodeProcess[] nodes;
    private final boolean[] down;
    private final CampaignLoad load;
    private final List<Outcome> outcomes = new ArrayList<>();
    /** HTTP/1.1 as the nodes speak it (an upgrade attempt to h2c once hung a scrape past its timeout). */
    private final java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
            .version(java.net.http.HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();

    private Campaign(NodeProcess.Launch launch, NetnsLab lab, int count, Path keys, Path logs, int users,
            Random random) {
        this.launch = launch;
        this.lab = lab;
        this.count = count;
        this.keys = keys;
        this.logs = logs;
        this.nodes = new NodeProcess[count + 1];
        this.down = new boolean[count + 1];
        this.load = new CampaignLoad(vertx, this, users, random);
    }

    static Campaign start(NodeProcess.Launch launch, int count, int users, Random random) throws Exception {
        List<String> ids = new ArrayList<>();
        for (int k = 1; k <= count; k++) {
            ids.add("node-" + k);
        }
        Path keys = ClusterKeys.ensure(Path.of(System.getProperty("java.io.tmpdir"), "farmgate-campaign-keys"), ids);
        Campaign campaign = new Campaign(launch, NetnsLab.up(count), count, keys,
                Files.createTempDirectory("farmgate-campaign-"), users, random);
        try {
            for (int k = 1; k <= count; k++) {
                SyntheticGuacd guacd = SyntheticGuacd.start(campaign.vertx, NetnsLab.ROOT, 0, quietGuacd(), false)
                        .await(10, TimeUnit.SECONDS);
                campaign.guacds.add(guacd);
                campaign.guacdPorts.add(guacd.port());
                FaultProxy link = campaign.link(0, guacd.port(), Faults.NONE);
                campaign.links.add(link);
                campaign.linkPorts.add(link.port());
            }
            for (int k = 1; k <= count; k++) {
                campaign.startNode(k, true);
            }
            campaign.awaitConverged(Duration.ofSeconds(120));
            campaign.load.start();
        } catch (Exception | Error e) {
            campaign.close();
            throw e;
        }
        return campaign;
    }

    /** The load's sessions answer no sync; a real client would. */
    private static SyntheticGuacdOptions quietGuacd() {
        return new SyntheticGuacdOptions().idleTimeout(Duration.ZERO);
    }

    private void startNode(int k, boolean fullMemberList) throws IOException, InterruptedException {
        List<Integer> members = new ArrayList<>();
        for (int other = 1; other <= count; other++) {
            if (fullMemberList || other == k) {
                members.add(other);
            }
        }
        Map<String, String> env = LabNodes.environment(k, members, "farmgate-campaign", keys, TOKEN, HTTP,
                linkPorts.get(k - 1));
        nodes[k] = NodeProcess.start(launch, env, List.of("-Xmx256m", "-XX:+UseSerialGC"),
                logs.resolve("node-" + k + ".log"), NetnsLab.on(k), NetnsLab.host(k));
        down[k] = false;
    }

    int count() {
        return count;
    }

    /** Whether node {@code k} runs and can be reached now. */
    synchronized boolean reachable(int k) {
        return !down[k];
    }

    GatewayApi api(int k) {
        return new GatewayApi(nodes[k].baseUrl(), TOKEN);
    }

    String host(int k) {
        return NetnsLab.host(k);
    }

    int httpPort() {
        return HTTP;
    }

    List<Outcome> outcomes() {
        return outcomes;
    }

    CampaignLoad load() {
        return load;
    }

    // ---- faults ------------------------------------------------------------------------------------------------

    /** SIGKILL, then (after the cluster converged without it and the invariants held) a restart. */
    Outcome kill(int k) throws Exception {
        markDown(k, true);
        nodes[k].kill();
        Outcome gone = settle("kill node-" + k);
        startNode(k, true);
        Outcome back = settle("restart node-" + k);
        return merged("kill and restart node-" + k, gone, back);
    }

    /** SIGSTOP for a while, then SIGCONT: a JVM paused longer than the member timeout. */
    Outcome pause(int k, Duration length) throws Exception {
        markDown(k, true);
        nodes[k].pause();
        Thread.sleep(length.toMillis());
        nodes[k].resume();
        markDown(k, false);
        return settle("pause node-" + k + " for " + length.toSeconds() + " s");
    }

    /** Unplugs the host for a while, then plugs it back: a split brain, and the merge. */
    Outcome partition(int k, Duration length) throws Exception {
        markDown(k, true);
        lab.cut(k);
        Thread.sleep(length.toMillis());
        lab.heal(k);
        markDown(k, false);
        return settle("partition node-" + k + " for " + length.toSeconds() + " s");
    }

    /** guacd dies and comes back on its port: the node's sessions end, the node takes new ones again. */
    Outcome restartGuacd(int k) throws Exception {
        guacds.get(k - 1).close().await(10, TimeUnit.SECONDS);
        Thread.sleep(3000);
        SyntheticGuacd again = SyntheticGuacd.start(vertx, NetnsLab.ROOT, guacdPorts.get(k - 1), quietGuacd(), false)
                .await(10, TimeUnit.SECONDS);
        guacds.set(k - 1, again);
        return settle("restart guacd of node-" + k);
    }

    /**
     * The node's link to its guacd is cut (its sessions end), then slow and stalling for a while (150 ms each way,
     * jitter, a 500 ms stall every 2 s), then healthy again.
     */
    Outcome degradeLink(int k, Duration length) throws Exception {
        int port = linkPorts.get(k - 1);
        links.get(k - 1).close().await(10, TimeUnit.SECONDS);
        links.set(k - 1, link(port, guacdPorts.get(k - 1), Faults.NONE.withLatency(Duration.ofMillis(150),
                Duration.ofMillis(50)).withStalls(Duration.ofSeconds(2), Duration.ofMillis(500))));
        Thread.sleep(length.toMillis());
        links.get(k - 1).close().await(10, TimeUnit.SECONDS);
        links.set(k - 1, link(port, guacdPorts.get(k - 1), Faults.NONE));
        return settle("cut, then slow guacd link of node-" + k + " for " + length.toSeconds() + " s");
    }

    private FaultProxy link(int port, int guacdPort, Faults faults) throws Exception {
        return FaultProxy.start(vertx, NetnsLab.ROOT, port, NetnsLab.ROOT, guacdPort, faults)
                .await(10, TimeUnit.SECONDS);
    }

    /** The node restarts knowing only itself: a cluster of its own, until Hazelcast merges the two. */
    Outcome restartAlone(int k) throws Exception {
        markDown(k, true);
        nodes[k].kill();
        startNode(k, false);
        return settle("restart node-" + k + " without the member list");
    }

    private synchronized void markDown(int k, boolean value) {
        down[k] = value;
    }

    private Outcome merged(String name, Outcome first, Outcome second) {
        List<String> violations = new ArrayList<>(first.violations());
        violations.addAll(second.violations());
        return new Outcome(name, Math.max(first.convergedMillis(), second.convergedMillis()), violations);
    }

    // ---- invariants --------------------------------------------------------------------------------------------

    /**
     * Waits, with the load held still (every user keeps the session it has, no new one starts), until the cluster
     * converged and every invariant holds; reports how long that took, or what still failed after the patience.
     */
    Outcome settle(String fault) throws Exception {
        long start = System.nanoTime();
        List<String> failing = List.of("not checked");
        load.hold();
        try {
            while (System.nanoTime() - start < PATIENCE.toNanos()) {
                failing = check();
                if (failing.isEmpty()) {
                    break;
                }
                Thread.sleep(500);
            }
        } finally {
            load.release();
        }
        Outcome outcome = new Outcome(fault, (System.nanoTime() - start) / 1_000_000, failing);
        outcomes.add(outcome);
        return outcome;
    }

    /** Every invariant, once; what fails. */
    List<String> check() throws Exception {
        List<String> failing = new ArrayList<>();
        Set<String> running = new TreeSet<>();
        for (int k = 1; k <= count; k++) {
            if (reachable(k)) {
                running.add("node-" + k);
            }
        }
        int first = -1;
        for (int k = 1; k <= count; k++) {
            if (!reachable(k)) {
                continue;
            }
            Set<String> seen = new TreeSet<>();
            try {
                for (JsonNode row : api(k).get("/api/cluster").get("nodes")) {
                    seen.add(row.get("node_id").asText());
                }
            } catch (IOException e) {
                failing.add("node-" + k + " does not answer: " + e.getMessage());
                continue;
            }
            if (!seen.equals(running)) {
                failing.add("node-" + k + " sees " + seen + ", running are " + running);
            }
            first = first < 0 ? k : first;
        }
        if (first < 0 || !failing.isEmpty()) {
            return failing;
        }
        GatewayApi api = api(first);
        Map<String, JsonNode> live = new TreeMap<>();
        for (JsonNode record : api.get("/api/sessions?all=true")) {
            String status = record.get("status").asText();
            if (status.equals("pending") || status.equals("active")) {
                live.put(record.get("session_id").asText(), record);
            }
        }
        Map<String, CampaignLoad.Held> held = load.echoing();
        for (CampaignLoad.Held session : held.values()) {
            JsonNode record = live.get(session.id());
            if (record == null || !record.get("status").asText().equals("active")) {
                failing.add("session " + session.id() + " relays bytes but its record says "
                        + (record == null ? "nothing live" : record.get("status").asText()));
            }
        }
        for (String id : live.keySet()) {
            if (!held.containsKey(id)) {
                failing.add("the directory calls session " + id + " live on " + live.get(id).get("node_id").asText()
                        + ", but no client holds it");
            }
        }
        Map<String, Integer> perNode = new TreeMap<>();
        live.values().forEach(record -> perNode.merge(record.get("node_id").asText(), 1, Integer::sum));
        for (JsonNode row : api.get("/api/cluster").get("nodes")) {
            String node = row.get("node_id").asText();
            int reserved = row.get("sessions_total").asInt();
            if (reserved != perNode.getOrDefault(node, 0)) {
                failing.add(node + " has " + reserved + " reservations for " + perNode.getOrDefault(node, 0)
                        + " live sessions");
            }
        }
        int local = 0;
        for (int k = 1; k <= count; k++) {
            if (reachable(k)) {
                local += localLiveSessions(k);
            }
        }
        if (local != live.size()) {
            failing.add("the nodes run " + local + " sessions, the directory has " + live.size() + " live");
        }
        Map<String, Set<String>> byUser = new TreeMap<>();
        live.values().forEach(record -> byUser.computeIfAbsent(record.get("created_by").asText(),
                user -> new TreeSet<>()).add(record.get("session_id").asText()));
        Map<String, Set<String>> quota = new TreeMap<>();
        api.get("/api/cluster/quota").get("users").fields().forEachRemaining(user -> {
            Set<String> ids = new TreeSet<>();
            user.getValue().forEach(id -> ids.add(id.asText()));
            quota.put(user.getKey(), ids);
        });
        if (!quota.equals(byUser)) {
            failing.add("quota places " + quota + " are not the live sessions " + byUser);
        }
        return failing;
    }

    /** The node's own count of its pending and active sessions, from its metrics. */
    private int localLiveSessions(int k) throws IOException, InterruptedException {
        String metrics = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(nodes[k].baseUrl()
                + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        double total = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("farmgate_sessions{") && (line.contains("status=\"pending\"")
                    || line.contains("status=\"active\""))) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return (int) total;
    }

    /** Stops the load (every user deletes its session) and checks that nothing is left anywhere. */
    Outcome drain() throws Exception {
        load.stop();
        long start = System.nanoTime();
        List<String> failing = List.of("not checked");
        while (System.nanoTime() - start < PATIENCE.toNanos()) {
            failing = new ArrayList<>(check());
            for (int k = 1; k <= count; k++) {
                if (reachable(k)) {
                    for (JsonNode row : api(k).get("/api/cluster").get("nodes")) {
                        if (row.get("memory").get("reserved_mb").asLong() != 0) {
                            failing.add(row.get("node_id").asText() + " still has "
                                    + row.get("memory").get("reserved_mb").asLong() + " MB reserved");
                        }
                    }
                    break;
                }
            }
            if (failing.isEmpty()) {
                break;
            }
            Thread.sleep(500);
        }
        Outcome outcome = new Outcome("load stopped: nothing leaked", (System.nanoTime() - start) / 1_000_000,
                failing);
        outcomes.add(outcome);
        return outcome;
    }

    private void awaitConverged(Duration patience) throws Exception {
        long deadline = System.nanoTime() + patience.toNanos();
        List<String> failing = List.of();
        while (System.nanoTime() < deadline) {
            failing = check();
            if (failing.isEmpty()) {
                return;
            }
            Thread.sleep(500);
        }
        throw new IOException("the cluster did not form: " + failing + "; logs in " + logs);
    }

    Path logs() {
        return logs;
    }

    @Override
    public void close() throws Exception {
        load.stop();
        for (int k = 1; k <= count; k++) {
            if (nodes[k] != null) {
                try {
                    nodes[k].resume();
                } catch (IOException ignored) {
                    // it was not paused, or is gone
                }
                nodes[k].kill();
            }
        }
        for (FaultProxy link : links) {
            link.close().await(10, TimeUnit.SECONDS);
        }
        for (SyntheticGuacd guacd : guacds) {
            guacd.close().await(10, TimeUnit.SECONDS);
        }
        vertx.close().await(10, TimeUnit.SECONDS);
        lab.close();
    }
}
