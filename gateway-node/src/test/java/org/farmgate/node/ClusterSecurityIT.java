package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.PfxOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.client.WsClient;
import org.farmgate.testkit.fault.TappingProxy;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.ClusterKeys;
import org.farmgate.testkit.process.NodeProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Two node processes with keys made by bin/farmgate-keys, and an attacker on the cluster network who knows the
 * cluster's name and every port but holds no node certificate: it cannot speak to the event bus or the relay
 * listener (in clear, with no certificate, or with a certificate of another CA), cannot connect a Hazelcast
 * client, and reads neither credentials nor keystrokes on the wire between the nodes (everything node 2 receives
 * over the event bus and the relay passes through tapping proxies). The member, event-bus and relay ports are bound
 * to the cluster address alone, as the processes' real sockets show.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterSecurityIT {

    private static final String TOKEN = "security-it-admin-token-0123456789abcdef";
    private static final String CLUSTER_HOST = "127.0.0.2";
    private static final String PASSWORD = "Pr0per-Secret-Passw0rd";
    private static Vertx vertx;
    private static SyntheticGuacd guacd;
    private static final List<NodeProcess> nodes = new ArrayList<>();
    private static TappingProxy eventBusTap;
    private static TappingProxy relayTap;
    private static Path keys;
    private static Path rogue;
    private static final Map<String, Integer> ports = new HashMap<>();

    @BeforeAll
    static void start() throws Exception {
        vertx = Vertx.vertx();
        guacd = SyntheticGuacd.start(vertx, new SyntheticGuacdOptions().echoKeys(true)).await(10, TimeUnit.SECONDS);
        keys = ClusterKeys.ensure(Path.of("target/cluster-keys-security").toAbsolutePath(), List.of("sec-1", "sec-2"));
        // Another CA, with a certificate for a name the cluster knows: still a stranger.
        rogue = ClusterKeys.ensure(Path.of("target/cluster-keys-rogue").toAbsolutePath(), List.of("sec-1", "rogue-1"));
        for (String key : List.of("member-1", "member-2", "bus-1", "bus-2", "relay-1", "relay-2", "member-r", "bus-r",
                "relay-r")) {
            ports.put(key, TestNode.freePort());
        }
        eventBusTap = TappingProxy.start(vertx, CLUSTER_HOST, CLUSTER_HOST, ports.get("bus-2"), 16 << 20)
                .await(10, TimeUnit.SECONDS);
        relayTap = TappingProxy.start(vertx, CLUSTER_HOST, CLUSTER_HOST, ports.get("relay-2"), 16 << 20)
                .await(10, TimeUnit.SECONDS);
        String members = CLUSTER_HOST + ":" + ports.get("member-1") + "," + CLUSTER_HOST + ":" + ports.get("member-2");
        for (int i = 1; i <= 2; i++) {
            Map<String, String> env = new HashMap<>();
            env.put("GW_NODE_ID", "sec-" + i);
            env.put("GW_ADMIN_TOKEN", TOKEN);
            env.put("GW_GUACD_PORT", String.valueOf(guacd.port()));
            env.put("GW_CLUSTER_HOST", CLUSTER_HOST);
            env.put("GW_CLUSTER_PORT", String.valueOf(ports.get("member-" + i)));
            env.put("GW_CLUSTER_MEMBERS", members);
            env.put("GW_CLUSTER_NAME", "farmgate-security-it");
            env.put("GW_EVENTBUS_PORT", String.valueOf(ports.get("bus-" + i)));
            env.put("GW_RELAY_PORT", String.valueOf(ports.get("relay-" + i)));
            env.put("GW_CLUSTER_SECRETS_DIR", keys.toString());
            // node 2 takes the sessions (more memory) and is reached only through the taps
            env.put("GW_MEMORY_BUDGET_MB", i == 1 ? "20" : "5000");
            env.put("GW_COST_SSH_MB", "30");
            if (i == 2) {
                env.put("GW_EVENTBUS_PUBLIC_PORT", String.valueOf(eventBusTap.port()));
                env.put("GW_RELAY_PUBLIC_PORT", String.valueOf(relayTap.port()));
            }
            env.put("GW_HEARTBEAT_MS", "500");
            env.put("GW_LOG_LEVEL", "WARN");
            Path log = Files.createTempFile("farmgate-security-it-" + i, ".log");
            nodes.add(NodeProcess.start(NodeProcess.Launch.jar(Path.of("target/farmgate-node.jar")), env,
                    List.of("-Xmx256m"), log));
        }
        GatewayApi first = api(1);
        TestNode.await(() -> nodeCount(first) == 2, "the two processes did not form one cluster");
    }

    @AfterAll
    static void stop() throws Exception {
        for (NodeProcess node : nodes) {
            node.close();
        }
        if (vertx != null) {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void credentialsAndKeystrokesCrossTheWireEncrypted() throws Exception {
        JsonNode session = api(1).post("/api/sessions", "{\"hostname\":\"127.0.0.1\",\"username\":\"bench\","
                + "\"password\":\"" + PASSWORD + "\"}");
        assertEquals("sec-2", session.get("node_id").asText(), "placed on node 2, behind the taps");
        String ticket = api(1).post("/api/ws-ticket", null).get("ticket").asText();
        String typed = "3.key,5.65307,1.1;3.key,5.65307,1.0;";
        try (WsClient ws = WsClient.connect(vertx, nodes.get(0).httpPort(), session.get("ws_url").asText()
                + "?ticket=" + ticket, null)) {
            ws.awaitInstruction("sync");
            for (int i = 0; i < 20; i++) {
                ws.send(typed);
            }
            ws.send("0.,4.ping,13.1700000000000;");
            ws.awaitInstruction("");
        }
        TestNode.await(() -> eventBusTap.seen().length > 500 && relayTap.seen().length > 2000,
                "the traffic to node 2 did not pass through the taps");
        for (byte[] seen : List.of(eventBusTap.seen(), relayTap.seen())) {
            String wire = new String(seen, StandardCharsets.ISO_8859_1);
            assertFalse(wire.contains(PASSWORD), "the password is readable on the wire");
            assertFalse(wire.contains("65307"), "keystrokes are readable on the wire");
            assertFalse(wire.contains("guacamole"), "the relay's WebSocket upgrade is readable on the wire");
        }
    }

    @Test
    void anAttackerWithoutANodeCertificateGetsNothingThrough() throws Exception {
        int before = api(1).get("/api/sessions?all=true").size();
        String frame = "{\"session_id\":\"evil\",\"creator\":{\"name\":\"evil\",\"role\":\"admin\",\"groups\":[]}}";
        for (String node : List.of("bus-1", "bus-2", "relay-1", "relay-2")) {
            int port = ports.get(node);
            assertTrue(refused(port, null, frame), node + " accepted a client in clear text");
            assertTrue(refused(port, new NetClientOptions().setSsl(true).setTrustAll(true), frame),
                    node + " accepted a TLS client without a certificate");
            assertTrue(refused(port, new NetClientOptions().setSsl(true).setTrustAll(true)
                    .setKeyCertOptions(new PfxOptions().setPath(rogue.resolve("sec-1.p12").toString())
                            .setPassword(Files.readString(rogue.resolve("password")).trim())), frame),
                    node + " accepted a certificate of another CA");
        }
        assertFalse(relayAccepted(ports.get("relay-2")), "the relay listener upgraded a stranger's WebSocket");
        assertEquals(before, api(1).get("/api/sessions?all=true").size(), "a session appeared");
    }

    @Test
    void aHazelcastClientThatKnowsTheClusterNameCannotConnect() {
        ClientConfig config = new ClientConfig().setClusterName("farmgate-security-it");
        config.getNetworkConfig().addAddress(CLUSTER_HOST + ":" + ports.get("member-1"));
        config.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(4000);
        config.setProperty("hazelcast.logging.type", "slf4j");
        boolean connected;
        try {
            HazelcastClient.newHazelcastClient(config).shutdown();
            connected = true;
        } catch (RuntimeException e) {
            connected = false;
        }
        assertFalse(connected, "a plain Hazelcast client joined the cluster's data");
    }

    @Test
    void clusterPortsListenOnTheClusterAddressOnly() throws Exception {
        for (int i = 0; i < nodes.size(); i++) {
            Set<String> listening = listening(nodes.get(i).pid());
            int http = nodes.get(i).httpPort();
            // by address, not by port: a cluster socket the system numbered may share the HTTP port's number
            assertTrue(listening.contains("127.0.0.1:" + http), "node " + (i + 1) + " serves no HTTP: " + listening);
            for (String socket : listening) {
                boolean allowed = socket.equals("127.0.0.1:" + http) || socket.startsWith(CLUSTER_HOST + ":");
                assertTrue(allowed, "node " + (i + 1) + " listens on " + socket + "; all its sockets: " + listening);
            }
            for (String port : List.of("member-", "bus-", "relay-")) {
                assertTrue(listening.contains(CLUSTER_HOST + ":" + ports.get(port + (i + 1))),
                        "node " + (i + 1) + " does not listen on its " + port + " port: " + listening);
            }
        }
    }

    /**
     * A member with another CA's certificate and another cluster key joins Hazelcast (open-source Hazelcast lets any
     * member in) but is never believed: the real nodes never list it and never place a session on it. What it can
     * still do is garble what it owns (a denial of service), so a create may answer 503, never anything worse.
     * Last, since the stranger's partitions disturb the cluster while it is in.
     */
    @Test
    @Order(Integer.MAX_VALUE)
    void aMemberWithAnotherCaAndClusterKeyIsNeverBelieved() throws Exception {
        String members = CLUSTER_HOST + ":" + ports.get("member-1") + "," + CLUSTER_HOST + ":" + ports.get("member-2");
        Map<String, String> env = new HashMap<>();
        env.put("GW_NODE_ID", "rogue-1");
        env.put("GW_ADMIN_TOKEN", TOKEN);
        env.put("GW_GUACD_PORT", String.valueOf(guacd.port()));
        env.put("GW_CLUSTER_HOST", CLUSTER_HOST);
        env.put("GW_CLUSTER_PORT", String.valueOf(ports.get("member-r")));
        env.put("GW_CLUSTER_MEMBERS", members);
        env.put("GW_CLUSTER_NAME", "farmgate-security-it");
        env.put("GW_EVENTBUS_PORT", String.valueOf(ports.get("bus-r")));
        env.put("GW_RELAY_PORT", String.valueOf(ports.get("relay-r")));
        env.put("GW_CLUSTER_SECRETS_DIR", rogue.toString());
        env.put("GW_MEMORY_BUDGET_MB", "1000000"); // would win every placement if believed
        env.put("GW_HEARTBEAT_MS", "500");
        env.put("GW_LOG_LEVEL", "WARN");
        try (NodeProcess stranger = startStranger(env)) {
            List<Set<String>> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
            // Heartbeats of the real nodes that land on the stranger's partitions are dropped there (a denial of
            // service): the view may lose real nodes, but it never gains the stranger.
            try {
                Awaitility.await().during(Duration.ofSeconds(8)).atMost(Duration.ofSeconds(20)).until(() -> {
                    Set<String> ids = nodeIds(api(1));
                    seen.add(ids);
                    return Set.of("sec-1", "sec-2").containsAll(ids);
                });
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("the stranger was listed as a node: " + seen, e);
            }
            List<Integer> answers = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                GatewayApi.Answer answer = api(1).postAnswer("/api/sessions", "{\"hostname\":\"127.0.0.1\"}");
                answers.add(answer.status());
                assertTrue(answer.status() == 201 || answer.status() == 503, "create answered " + answer);
                if (answer.status() == 201) {
                    assertTrue(Set.of("sec-1", "sec-2").contains(answer.body().get("node_id").asText()),
                            answer.toString());
                }
            }
        }
    }

    /**
     * The stranger, started; it may be refused at its own start (its first registry write lands on a partition a
     * real member owns, which does not answer it as a node of this cluster), which is the design working, so it is
     * tried again until it runs with partitions of its own. Any other failure fails the test.
     */
    private static NodeProcess startStranger(Map<String, String> env) throws Exception {
        for (int attempt = 1; ; attempt++) {
            Path log = Files.createTempFile("farmgate-security-it-rogue", ".log");
            try {
                return NodeProcess.start(NodeProcess.Launch.jar(Path.of("target/farmgate-node.jar")), env,
                        List.of("-Xmx256m"), log);
            } catch (java.io.IOException e) {
                String said = Files.readString(log);
                if (attempt == 3 || !said.contains("did not answer as a node of this cluster does")) {
                    throw new AssertionError("the stranger did not start (attempt " + attempt + "): " + said, e);
                }
            }
        }
    }

    private static Set<String> nodeIds(GatewayApi api) {
        try {
            Set<String> ids = new HashSet<>();
            api.get("/api/cluster").get("nodes").forEach(node -> ids.add(node.get("node_id").asText()));
            return ids;
        } catch (Exception e) {
            return Set.of(); // unreadable counts as no node: the denial of service the test allows
        }
    }

    /** Connects, sends {@code frame}, and reports whether the server closed on it without a word of its own. */
    private static boolean refused(int port, NetClientOptions options, String frame) throws Exception {
        CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        Buffer received = Buffer.buffer();
        vertx.createNetClient(options == null ? new NetClientOptions() : options).connect(port, CLUSTER_HOST)
                .onFailure(error -> outcome.complete(true))
                .onSuccess((NetSocket socket) -> {
                    socket.handler(received::appendBuffer);
                    socket.closeHandler(v -> outcome.complete(true));
                    byte[] body = frame.getBytes(StandardCharsets.UTF_8);
                    // an event-bus frame: length, protocol version, codec, flags, then the body
                    socket.write(Buffer.buffer().appendInt(body.length + 16).appendByte((byte) 1)
                            .appendByte((byte) 9).appendBytes(body));
                    socket.write(Buffer.buffer("GET /internal/relay/x HTTP/1.1\r\nHost: x\r\n\r\n"));
                    vertx.setTimer(5000, id -> outcome.complete(false));
                });
        boolean closed = outcome.get(10, TimeUnit.SECONDS);
        String text = received.toString(StandardCharsets.ISO_8859_1);
        return closed && !text.contains("HTTP/1.1") && !text.contains("{");
    }

    private static boolean relayAccepted(int port) throws Exception {
        CompletableFuture<Boolean> outcome = new CompletableFuture<>();
        vertx.createWebSocketClient(new WebSocketClientOptions().setSsl(true).setTrustAll(true).setVerifyHost(false))
                .connect(new WebSocketConnectOptions().setHost(CLUSTER_HOST).setPort(port)
                        .setURI("/internal/relay/x?ticket=guess"))
                .onSuccess(ws -> outcome.complete(true)).onFailure(error -> outcome.complete(false));
        return outcome.get(10, TimeUnit.SECONDS);
    }

    /** The process's listening TCP sockets as address:port, from /proc (its socket inodes, then the tables). */
    private static Set<String> listening(long pid) throws IOException {
        Set<String> inodes = new HashSet<>();
        try (var fds = Files.newDirectoryStream(Path.of("/proc/" + pid + "/fd"))) {
            for (Path fd : fds) {
                try {
                    String link = Files.readSymbolicLink(fd).toString();
                    if (link.startsWith("socket:[")) {
                        inodes.add(link.substring(8, link.length() - 1));
                    }
                } catch (IOException ignored) {
                    // the descriptor closed meanwhile
                }
            }
        }
        Set<String> out = new HashSet<>();
        for (String table : List.of("tcp", "tcp6")) {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/net/" + table))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[3].equals("0A") && inodes.contains(f[9])) { // 0A: LISTEN
                    out.add(address(f[1]));
                }
            }
        }
        return out;
    }

    /** /proc/net/tcp's hex address (little-endian IPv4, or IPv6 in four words) and port. */
    private static String address(String hex) {
        String[] parts = hex.split(":");
        int port = Integer.parseInt(parts[1], 16);
        String ip = parts[0];
        if (ip.length() == 8) {
            return Integer.parseInt(ip.substring(6, 8), 16) + "." + Integer.parseInt(ip.substring(4, 6), 16) + "."
                    + Integer.parseInt(ip.substring(2, 4), 16) + "." + Integer.parseInt(ip.substring(0, 2), 16)
                    + ":" + port;
        }
        Matcher mapped = Pattern.compile("0{16}FFFF0000([0-9A-F]{8})").matcher(ip);
        if (mapped.matches()) {
            return address(mapped.group(1) + ":" + parts[1]);
        }
        return (ip.equals("00000000000000000000000000000000") ? "[::]" : "[" + ip + "]") + ":" + port;
    }

    private static GatewayApi api(int node) {
        return new GatewayApi(nodes.get(node - 1).baseUrl(), TOKEN);
    }

    private static int nodeCount(GatewayApi api) {
        try {
            return api.get("/api/cluster").get("nodes").size();
        } catch (Exception e) {
            return -1;
        }
    }
}
