package org.farmgate.bench.fault;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.farmgate.protocol.Instruction;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.client.WsClient;

/**
 * The campaign's steady load: each user keeps one live session at a time, created on a random reachable node and
 * attached there, pings through it every half second (the echo proves the session relays), and after a few seconds
 * deletes it and starts the next. While the campaign {@link #hold holds} the load, users start no new session and
 * keep the one they have, so that the invariants are checked against a still picture; a session that stops
 * echoing is given up at once either way.
 */
final class CampaignLoad {

    private static final String CREATE = "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\"}";

    /** A session a user holds, and whether its last ping came back. */
    record Held(String id, int node, WsClient socket) {
    }

    private final Vertx vertx;
    private final Campaign campaign;
    private final int users;
    private final Random random;
    private final Map<String, Held> echoing = new ConcurrentHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicInteger holding = new AtomicInteger();
    private final AtomicInteger busy = new AtomicInteger();
    private final AtomicLong created = new AtomicLong();
    private final AtomicLong failedCreates = new AtomicLong();
    private final AtomicLong broken = new AtomicLong();
    private volatile boolean running;

    CampaignLoad(Vertx vertx, Campaign campaign, int users, Random random) {
        this.vertx = vertx;
        this.campaign = campaign;
        this.users = users;
        this.random = random;
    }

    void start() {
        running = true;
        for (int u = 0; u < users; u++) {
            long seed = random.nextLong();
            Thread thread = new Thread(() -> user(new Random(seed)), "campaign-user-" + u);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    /** No new sessions until {@link #release}; returns once no user is between steps of a create. */
    void hold() throws InterruptedException {
        holding.incrementAndGet();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (busy.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    void release() {
        holding.decrementAndGet();
    }

    /** Stops every user; each deletes the session it holds. */
    void stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        threads.clear();
    }

    /** The sessions whose last ping came back. */
    Map<String, Held> echoing() {
        return Map.copyOf(echoing);
    }

    String summary() {
        return created.get() + " sessions created, " + failedCreates.get() + " creates refused or failed, "
                + broken.get() + " sessions broken by faults";
    }

    private void user(Random random) {
        int ping = 0;
        while (running) {
            Held session = open(random);
            if (session == null) {
                pause(200);
                continue;
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3000 + random.nextInt(7000));
            boolean alive = true;
            while (running && alive && (System.nanoTime() < end || holding.get() > 0)) {
                alive = echoes(session, ++ping);
                if (alive) {
                    echoing.put(session.id(), session);
                    pause(500);
                } else {
                    broken.incrementAndGet();
                }
            }
            echoing.remove(session.id());
            session.socket().close();
            delete(session, random);
        }
    }

    /** Creates and attaches a session; null when the cluster refused, failed, or the load is held. */
    private Held open(Random random) {
        busy.incrementAndGet();
        try {
            if (holding.get() > 0 || !running) {
                return null;
            }
            int k = reachable(random);
            if (k < 0) {
                return null;
            }
            GatewayApi api = campaign.api(k);
            GatewayApi.Answer answer = api.postAnswer("/api/sessions", CREATE);
            if (answer.status() != 201) {
                failedCreates.incrementAndGet();
                return null;
            }
            JsonNode session = answer.body();
            String id = session.get("session_id").asText();
            try {
                String ticket = api.post("/api/ws-ticket", null).get("ticket").asText();
                WsClient socket = WsClient.connect(vertx, campaign.host(k), campaign.httpPort(),
                        session.get("ws_url").asText() + "?ticket=" + ticket, null);
                socket.awaitInstruction("sync");
                created.incrementAndGet();
                return new Held(id, k, socket);
            } catch (Throwable e) {
                failedCreates.incrementAndGet();
                api.delete("/api/sessions/" + id);
                return null;
            }
        } catch (Throwable e) {
            failedCreates.incrementAndGet();
            return null;
        } finally {
            busy.decrementAndGet();
        }
    }

    private static boolean echoes(Held session, int n) {
        try {
            session.socket().drain();
            session.socket().send("0.,4.ping,"
                    + String.valueOf(n).length() + "." + n + ";");
            return Instruction.of("", "ping", String.valueOf(n)).equals(session.socket().awaitInstruction(""));
        } catch (Throwable e) {
            return false;
        }
    }

    /** Deletes through any reachable node; a node that is gone took the session with it. */
    private void delete(Held session, Random random) {
        for (int attempt = 0; attempt < 5; attempt++) {
            int k = reachable(random);
            if (k < 0) {
                pause(500);
                continue;
            }
            try {
                int status = campaign.api(k).delete("/api/sessions/" + session.id());
                if (status == 204 || status == 404) {
                    return;
                }
            } catch (Exception e) {
                // try another node
            }
            pause(500);
        }
    }

    private int reachable(Random random) {
        List<Integer> up = new ArrayList<>();
        for (int k = 1; k <= campaign.count(); k++) {
            if (campaign.reachable(k)) {
                up.add(k);
            }
        }
        return up.isEmpty() ? -1 : up.get(random.nextInt(up.size()));
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
