package org.farmgate.bench.idle;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.farmgate.bench.node.ProcessProbe;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.client.StreamReader;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * What an attached but idle session costs the node: heap after a full GC, native memory (NMT, direct buffers
 * included), RSS and threads, at 1, 100 and 1000 sessions, against the same node's reading with none.
 *
 * <p>Each client behaves as guacamole-common-js does when nothing moves on screen: it answers syncs, pings the
 * tunnel every 500 ms and sends {@code nop} every 5 s (guacd drops a user silent for 15 s).
 *
 * <p>{@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.idle.IdleSessionsBenchmark
 * [--node-jar PATH] [--counts 0,1,100,1000] [--warmup 20]}
 */
@Command(name = "idle-sessions", mixinStandardHelpOptions = true, description = "What an idle session costs a node.")
public final class IdleSessionsBenchmark implements Callable<Integer> {

    private static final String TOKEN = "bench-admin-token-0123456789abcdef";
    private static final String SESSION = "{\"hostname\":\"127.0.0.1\",\"username\":\"bench\",\"password\":\"bench\"}";

    @Option(names = "--node-jar", paramLabel = "PATH", description = "the node jar; default: this JVM's class path")
    private String nodeJar;
    @Option(names = "--counts", defaultValue = "1,100,1000", split = "\\s*,\\s*", description = "session counts")
    private List<Integer> counts;
    @Option(names = "--warmup", defaultValue = "20", description = "sessions opened and closed before measuring")
    private int warmup;

    /** Made by {@link #call()}: parsing the options starts no thread. */
    private Vertx guacdSide;
    private Vertx clientSide;
    private final List<WebSocket> sockets = new ArrayList<>();
    private WebSocketClient client;
    private long tick;

    public static void main(String[] args) {
        System.exit(new CommandLine(new IdleSessionsBenchmark()).execute(args));
    }

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (counts.isEmpty() || counts.stream().anyMatch(count -> count < 0)) {
            throw new ParameterException(spec.commandLine(), "--counts takes session counts of 0 or more, got "
                    + counts);
        }
        if (warmup < 0) {
            throw new ParameterException(spec.commandLine(), "--warmup takes 0 or more sessions, got " + warmup);
        }
        guacdSide = Vertx.vertx();
        clientSide = Vertx.vertx();
        try {
            run(NodeProcess.Launch.jarOrOwnClassPath(nodeJar));
        } finally {
            clientSide.close().await(10, TimeUnit.SECONDS);
            guacdSide.close().await(10, TimeUnit.SECONDS);
        }
        return 0;
    }

    private void run(NodeProcess.Launch jar) throws Exception {
        SyntheticGuacd guacd = SyntheticGuacd.start(guacdSide, "127.0.0.1", 0, new SyntheticGuacdOptions(), false)
                .await(10, TimeUnit.SECONDS);
        Path log = Files.createTempFile("farmgate-bench-node", ".log");
        try (NodeProcess node = NodeProcess.start(jar, Map.of("GW_ADMIN_TOKEN", TOKEN,
                "GW_GUACD_PORT", String.valueOf(guacd.port()), "GW_NODE_ID", "bench", "GW_LOG_LEVEL", "WARN",
                "GW_MAX_SESSIONS", "5000", "GW_MAX_SESSIONS_PER_USER", "5000", "GW_MAX_MEMORY_MB_PER_USER", "10000000",
                "GW_SESSION_RETENTION_SECS", "0"),
                List.of("-Xmx1g", "-XX:NativeMemoryTracking=summary"), log)) {
            node.awaitReady(Duration.ofSeconds(60)); // health answers before the node can place a session
            keepAlive();
            open(node, warmup); // classes loaded, pools and JIT settled
            closeAll();
            Thread.sleep(2000);
            ProcessProbe.Reading base = ProcessProbe.read(node.pid());
            System.out.printf("%nIdle attached sessions on one node (node JVM -Xmx1g, %d event loops)%n",
                    Runtime.getRuntime().availableProcessors());
            System.out.printf("%-9s %9s %9s %9s %9s %8s | %13s %13s %13s%n", "sessions", "heap MB", "NMT MB",
                    "direct MB", "RSS MB", "threads", "heap KB/sess", "direct KB/s.", "RSS KB/sess");
            print(0, base, base);
            for (int count : counts) {
                open(node, count);
                Thread.sleep(3000);
                ProcessProbe.Reading reading = ProcessProbe.read(node.pid());
                print(count, reading, base);
                closeAll();
                Thread.sleep(3000);
            }
        } finally {
            guacd.close().await(10, TimeUnit.SECONDS);
        }
    }

    private static void print(int count, ProcessProbe.Reading r, ProcessProbe.Reading base) {
        double n = Math.max(1, count);
        System.out.printf(Locale.ROOT, "%-9d %9.1f %9.1f %9.1f %9.1f %8d | %13s %13s %13s%n", count,
                r.heapUsedKb() / 1024.0, r.nmtCommittedKb() / 1024.0, r.nmtOtherKb() / 1024.0, r.rssKb() / 1024.0,
                r.threads(),
                count == 0 ? "" : String.format(Locale.ROOT, "%.1f", (r.heapUsedKb() - base.heapUsedKb()) / n),
                count == 0 ? "" : String.format(Locale.ROOT, "%.1f", (r.nmtOtherKb() - base.nmtOtherKb()) / n),
                count == 0 ? "" : String.format(Locale.ROOT, "%.1f", (r.rssKb() - base.rssKb()) / n));
    }

    /** The browser client's keep-alives: a ping every 500 ms and a nop every 5 s, on every socket. */
    private void keepAlive() {
        clientSide.setPeriodic(500, id -> {
            tick++;
            String ping = "0.,4.ping,13." + System.currentTimeMillis() + ";";
            synchronized (sockets) {
                for (WebSocket socket : sockets) {
                    if (!socket.isClosed()) {
                        socket.writeTextMessage(tick % 10 == 0 ? ping + "3.nop;" : ping);
                    }
                }
            }
        });
    }

    private void open(NodeProcess node, int count) throws Exception {
        if (count == 0) {
            return; // the reading with none: the same node measured again after the sessions before it ended
        }
        GatewayApi api = new GatewayApi(node.baseUrl(), TOKEN);
        if (client == null) { // one client for the run, with room for its largest count
            int most = Math.max(warmup, counts.stream().mapToInt(Integer::intValue).max().orElse(1));
            client = clientSide.createWebSocketClient(new WebSocketClientOptions().setMaxConnections(most));
        }
        CountDownLatch firstScreens = new CountDownLatch(count);
        for (int i = 0; i < count; i++) {
            GatewayApi.Attach attach = api.createSession(SESSION);
            WebSocket socket = client.connect(new WebSocketConnectOptions().setHost("127.0.0.1")
                    .setPort(node.httpPort()).setURI(attach.wsPath()).addSubProtocol("guacamole"))
                    .await(10, TimeUnit.SECONDS);
            boolean[] seen = {false};
            StreamReader reader = new StreamReader(socket::writeTextMessage);
            socket.handler(chunk -> {
                reader.accept(chunk);
                if (!seen[0] && reader.instructions() > 2) {
                    seen[0] = true;
                    firstScreens.countDown();
                }
            });
            synchronized (sockets) {
                sockets.add(socket);
            }
        }
        if (!firstScreens.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(firstScreens.getCount() + " sessions never got their first screen");
        }
    }

    private void closeAll() {
        synchronized (sockets) {
            sockets.forEach(WebSocket::close);
            sockets.clear();
        }
    }
}
