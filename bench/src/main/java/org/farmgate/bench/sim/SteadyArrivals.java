package org.farmgate.bench.sim;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.client.WsClient;

/**
 * Sessions arriving as the simulation makes them arrive: at random nodes (a load balancer), at exponential gaps
 * for a mean rate, each attached at the node that holds it and held for an exponential time (at most five means),
 * then closed by its browser (the nodes end a session whose tunnel closed at once: {@code GW_REATTACH_GRACE_SECS=0}).
 * Bounded: never more held at once than ten times the mean number, and nothing new after {@link #close}.
 */
final class SteadyArrivals implements AutoCloseable {

    private static final String CREATE = "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\"}";

    /** Where node K answers: its API, and the host and port its WebSockets take. */
    record Node(GatewayApi api, String host, int port) {
    }

    private final Vertx vertx;
    private final List<Node> nodes;
    private final double perSecond;
    private final double meanSeconds;
    private final SplittableRandom random;
    private final ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService creators = Executors.newFixedThreadPool(4);
    private final Map<String, WsClient> held = new ConcurrentHashMap<>();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean running;

    /** {@code nodes} in order: the one a create answer calls {@code node-K} is the K-th. */
    SteadyArrivals(Vertx vertx, List<Node> nodes, double perSecond, double meanSeconds, long seed) {
        this.vertx = vertx;
        this.nodes = nodes;
        this.perSecond = perSecond;
        this.meanSeconds = meanSeconds;
        this.random = new SplittableRandom(seed);
    }

    void start() {
        running = true;
        clock.execute(this::arrive);
    }

    long created() {
        return created.get();
    }

    long failed() {
        return failed.get();
    }

    int held() {
        return held.size();
    }

    /** Runs on the clock's thread: the next arrival is drawn here, so the randomness stays on one thread. */
    private void arrive() {
        if (!running) {
            return;
        }
        long gapMicros = (long) (-Math.log(1 - random.nextDouble()) / perSecond * 1e6);
        clock.schedule(this::arrive, Math.max(1, gapMicros), TimeUnit.MICROSECONDS);
        if (held.size() >= Math.max(10, 10 * perSecond * meanSeconds)) {
            failed.incrementAndGet();
            return;
        }
        Node entry = nodes.get(random.nextInt(nodes.size()));
        long lifeMillis = (long) Math.min(5 * meanSeconds * 1000, -Math.log(1 - random.nextDouble()) * meanSeconds
                * 1000);
        creators.execute(() -> open(entry, lifeMillis));
    }

    private void open(Node entry, long lifeMillis) {
        try {
            GatewayApi.Answer answer = entry.api().postAnswer("/api/sessions", CREATE);
            if (answer.status() != 201) {
                failed.incrementAndGet();
                return;
            }
            JsonNode session = answer.body();
            String id = session.get("session_id").asText();
            Node holder = nodes.get(nodeNumber(session.get("node_id").asText()) - 1);
            String ticket = holder.api().post("/api/ws-ticket", null).get("ticket").asText();
            WsClient socket = WsClient.connect(vertx, holder.host(), holder.port(),
                    session.get("ws_url").asText() + "?ticket=" + ticket, null);
            socket.awaitInstruction("sync");
            held.put(id, socket);
            created.incrementAndGet();
            clock.schedule(() -> end(id), lifeMillis, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            failed.incrementAndGet();
        }
    }

    private static int nodeNumber(String nodeId) {
        return Integer.parseInt(nodeId.substring(nodeId.lastIndexOf('-') + 1));
    }

    private void end(String id) {
        WsClient socket = held.remove(id);
        if (socket != null) {
            socket.close();
        }
    }

    /** No new session; every held one is closed. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        creators.shutdown();
        creators.awaitTermination(30, TimeUnit.SECONDS);
        clock.shutdownNow();
        clock.awaitTermination(10, TimeUnit.SECONDS);
        List.copyOf(held.keySet()).forEach(this::end);
    }
}
