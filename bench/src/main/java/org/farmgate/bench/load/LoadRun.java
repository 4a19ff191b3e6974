package org.farmgate.bench.load;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Starts the virtual users evenly over the ramp, prints a progress line every second, and waits for all of them:
 * at most ramp + hold + grace. Users still running then are failed "did not finish" and their sessions deleted.
 */
public final class LoadRun {

    private LoadRun() {
    }

    public static LoadReport run(LoadOptions options, PrintStream progress) throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            HttpClientAgent http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(10_000)
                    .setIdleTimeout(60), new PoolOptions().setHttp1MaxSize(64));
            WebSocketClient webSockets = vertx.createWebSocketClient(new WebSocketClientOptions()
                    .setConnectTimeout(10_000).setMaxConnections(options.sessions() + 1).setMaxFrameSize(1 << 20)
                    .setMaxMessageSize(16 << 20));
            List<SessionRecord> records = new ArrayList<>();
            List<VirtualUser> users = new java.util.concurrent.CopyOnWriteArrayList<>();
            CountDownLatch finished = new CountDownLatch(options.sessions());
            AtomicInteger started = new AtomicInteger();
            long rampNanos = options.ramp().toNanos();
            long begin = System.nanoTime();
            for (int i = 0; i < options.sessions(); i++) {
                SessionRecord record = new SessionRecord(i, options.baseUrls().get(i % options.baseUrls().size()));
                records.add(record);
                long delayMs = rampNanos * i / options.sessions() / 1_000_000;
                vertx.setTimer(Math.max(1, delayMs), id -> {
                    started.incrementAndGet();
                    VirtualUser user = new VirtualUser(vertx, http, webSockets, options, record, finished::countDown);
                    users.add(user);
                    user.run();
                });
            }
            long deadline = begin + options.ramp().plus(options.hold()).plus(options.grace()).toNanos();
            while (!finished.await(1, TimeUnit.SECONDS) && System.nanoTime() < deadline) {
                progress.print(progressLine(records, started.get(), finished.getCount(), begin));
            }
            progress.println(progressLine(records, started.get(), finished.getCount(), begin).stripTrailing());
            if (finished.getCount() > 0) {
                users.forEach(u -> u.abort("did not finish within ramp + hold + grace"));
                finished.await(15, TimeUnit.SECONDS);
            }
            return new LoadReport(records, (System.nanoTime() - begin) / 1e9);
        } finally {
            vertx.close().await(30, TimeUnit.SECONDS);
        }
    }

    /** A run on a thread of its own, quiet, while the caller measures something else meanwhile. */
    public static final class Background {

        private final Thread thread;
        private volatile LoadReport report;
        private volatile Exception failure;

        private Background(LoadOptions options, String name) {
            thread = new Thread(() -> {
                try {
                    report = run(options, new PrintStream(PrintStream.nullOutputStream()));
                } catch (Exception e) {
                    failure = e;
                }
            }, name);
            thread.start();
        }

        public boolean running() {
            return thread.isAlive();
        }

        /** Waits at most {@code millis}; the report once the run is over, else null. */
        public LoadReport await(long millis) throws Exception {
            thread.join(millis);
            if (failure != null) {
                throw failure;
            }
            return thread.isAlive() ? null : report;
        }
    }

    public static Background inBackground(LoadOptions options, String name) {
        return new Background(options, name);
    }

    private static String progressLine(List<SessionRecord> records, int started, long running, long begin) {
        long attached = records.stream().filter(r -> r.attachMs >= 0).count();
        long failed = records.stream().filter(r -> !r.ok && !r.failure.isEmpty()).count();
        double mb = records.stream().mapToLong(r -> r.bytes).sum() / 1e6;
        return String.format(Locale.ROOT, "%6.1f s  started %d  attached %d  running %d  failed %d  %.1f MB%s",
                (System.nanoTime() - begin) / 1e9, started, attached, Math.max(0, running - (records.size() - started)),
                failed, mb, System.console() != null ? "\r" : "\n");
    }
}
