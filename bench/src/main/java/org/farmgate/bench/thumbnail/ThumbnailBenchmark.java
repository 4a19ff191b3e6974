package org.farmgate.bench.thumbnail;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.farmgate.bench.Stats;
import org.farmgate.bench.node.CpuClock;
import org.farmgate.testkit.client.GatewayApi;
import org.farmgate.testkit.client.StreamReader;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What live thumbnails cost a node: N sessions streaming at the relay benchmark's realistic pace (a 16 KB frame
 * every 50 ms, syncs answered), a 1024x768 desktop-like screen guacd gives each joining user, and a sessions page
 * asking every session's picture every 5 s as the page does. Rounds alternate "page closed" (no asks) and "page
 * open"; the node process's CPU is read from /proc for each window. Prints the node's CPU % both ways, the
 * difference, the pictures made and the CPU per picture, and the time to a picture.
 */
@Command(name = "thumbnail-benchmark", mixinStandardHelpOptions = true,
        description = "the node CPU live thumbnails cost, N streaming sessions with a sessions page open")
public final class ThumbnailBenchmark implements Callable<Integer> {

    private static final String TOKEN = "bench-admin-token-0123456789abcdef";
    private static final String SESSION = "{\"hostname\":\"127.0.0.1\",\"username\":\"bench\",\"password\":\"bench\","
            + "\"width\":1024,\"height\":768}";

    @Option(names = "--sessions", defaultValue = "50", description = "streaming sessions (1..200)")
    private int sessions;

    @Option(names = "--seconds", defaultValue = "20", description = "length of each window (1..600)")
    private int seconds;

    @Option(names = "--rounds", defaultValue = "3", description = "pairs of windows, page closed then open (1..20)")
    private int rounds;

    @Option(names = "--node-jar", description = "the node's jar; default: this JVM's class path")
    private String nodeJar;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ThumbnailBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (sessions < 1 || sessions > 200 || seconds < 1 || seconds > 600 || rounds < 1 || rounds > 20) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--sessions 1..200, --seconds 1..600, --rounds 1..20");
        }
        Vertx vertx = Vertx.vertx();
        byte[] screen = desktop();
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, "127.0.0.1", 0, new SyntheticGuacdOptions()
                .stream(Duration.ofMillis(50), 16 * 1024).screen(screen), false).await(10, TimeUnit.SECONDS);
        WebSocketClient clients = vertx.createWebSocketClient();
        List<WebSocket> sockets = new ArrayList<>();
        Path log = Files.createTempFile("farmgate-bench-node", ".log");
        try (NodeProcess node = NodeProcess.start(NodeProcess.Launch.jarOrOwnClassPath(nodeJar), Map.of(
                "GW_ADMIN_TOKEN", TOKEN, "GW_GUACD_PORT", String.valueOf(guacd.port()), "GW_NODE_ID", "bench",
                "GW_LOG_LEVEL", "WARN", "GW_MAX_SESSIONS", "5000", "GW_MAX_SESSIONS_PER_USER", "5000",
                "GW_MAX_MEMORY_MB_PER_USER", "10000000", "GW_THUMBNAIL_SECS", "5"), List.of("-Xmx512m"), log)) {
            node.awaitReady(Duration.ofSeconds(60));
            GatewayApi api = new GatewayApi(node.baseUrl(), TOKEN);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < sessions; i++) {
                GatewayApi.Attach attach = api.createSession(SESSION);
                ids.add(attach.sessionId());
                WebSocket socket = clients.connect(new WebSocketConnectOptions().setHost("127.0.0.1")
                        .setPort(node.httpPort()).setURI(attach.wsPath()).addSubProtocol("guacamole"))
                        .await(10, TimeUnit.SECONDS);
                socket.handler(new StreamReader(socket::writeTextMessage)::accept);
                sockets.add(socket);
            }
            System.out.printf("%d sessions streaming 320 KB/s each; a %d KB PNG screen (1024x768) per join; "
                    + "the page asks every picture every 5 s%n", sessions, screen.length / 1024);
            System.out.printf("%-6s %14s %14s %10s %10s %14s %12s%n", "round", "closed CPU %", "open CPU %",
                    "+CPU %", "pictures", "CPU ms/picture", "p50 ms");
            double[] added = new double[rounds];
            double[] perPicture = new double[rounds];
            HttpClient http = HttpClient.newHttpClient();
            Thread.sleep(Math.min(3000, seconds * 1000L)); // the sessions settle
            for (int r = 0; r < rounds; r++) {
                double closed = cpuPercent(node.pid(), () -> Thread.sleep(seconds * 1000L));
                List<Double> latencies = new ArrayList<>();
                int[] made = {0};
                double open = cpuPercent(node.pid(), () -> page(http, node.baseUrl(), ids, latencies, made));
                added[r] = open - closed;
                perPicture[r] = made[0] == 0 ? 0 : added[r] / 100 * seconds * 1000 / made[0];
                System.out.printf(Locale.ROOT, "%-6d %14.1f %14.1f %10.1f %10d %14.1f %12.1f%n", r + 1, closed, open,
                        added[r], made[0], perPicture[r], latencies.isEmpty() ? 0
                                : Stats.median(latencies.stream().mapToDouble(Double::doubleValue).toArray()));
            }
            System.out.printf(Locale.ROOT, "median: +%.1f%% of one core for %d sessions, %.1f ms CPU a picture%n",
                    Stats.median(added), sessions, Stats.median(perPicture));
        } finally {
            for (WebSocket socket : sockets) {
                socket.close();
            }
            clients.close();
            guacd.close().await(10, TimeUnit.SECONDS);
            vertx.close().await(10, TimeUnit.SECONDS);
        }
        return 0;
    }

    /** The page: every 5 s, every session's picture, one after another (a browser fetches a few at a time). */
    private void page(HttpClient http, String base, List<String> ids, List<Double> latencies, int[] made)
            throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        Map<String, String> last = new java.util.HashMap<>();
        while (System.nanoTime() < end) {
            long round = System.nanoTime();
            for (String id : ids) {
                long started = System.nanoTime();
                HttpResponse<byte[]> answer = http.send(HttpRequest.newBuilder(URI.create(base + "/api/sessions/" + id
                        + "/thumbnail")).header("Authorization", "Bearer " + TOKEN).timeout(Duration.ofSeconds(20))
                        .build(), HttpResponse.BodyHandlers.ofByteArray());
                String madeAt = answer.headers().firstValue("X-Made-At").orElse(null);
                if (answer.statusCode() == 200 && madeAt != null && !madeAt.equals(last.put(id, madeAt))) {
                    made[0]++;
                    latencies.add((System.nanoTime() - started) / 1e6);
                }
            }
            long left = 5_000_000_000L - (System.nanoTime() - round);
            if (left > 0 && System.nanoTime() + left < end) {
                Thread.sleep(left / 1_000_000);
            } else if (left > 0) {
                Thread.sleep(Math.max(0, (end - System.nanoTime()) / 1_000_000));
            }
        }
    }

    @FunctionalInterface
    private interface Window {
        void run() throws Exception;
    }

    private static double cpuPercent(long pid, Window window) throws Exception {
        long cpu = CpuClock.cpuMillis(pid);
        long started = System.nanoTime();
        window.run();
        return 100.0 * (CpuClock.cpuMillis(pid) - cpu) / ((System.nanoTime() - started) / 1e6);
    }

    /** A 1024x768 screen with windows, text-like rows and a photo-like corner: what a desktop's PNG weighs. */
    static byte[] desktop() throws Exception {
        BufferedImage image = new BufferedImage(1024, 768, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        Random random = new Random(42);
        g.setColor(new Color(40, 70, 110));
        g.fillRect(0, 0, 1024, 768);
        for (int w = 0; w < 6; w++) {
            int x = random.nextInt(600);
            int y = random.nextInt(400);
            g.setColor(Color.WHITE);
            g.fillRect(x, y, 400, 300);
            g.setColor(new Color(200, 200, 210));
            g.fillRect(x, y, 400, 22);
            g.setColor(Color.DARK_GRAY);
            for (int row = y + 30; row < y + 290; row += 14) {
                for (int col = x + 8; col < x + 390; col += 7) {
                    if (random.nextInt(5) > 0) {
                        g.fillRect(col, row, 5, 9);
                    }
                }
            }
        }
        for (int y = 560; y < 768; y++) {
            for (int x = 760; x < 1024; x++) {
                image.setRGB(x, y, random.nextInt(0xffffff));
            }
        }
        g.dispose();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ImageIO.write(image, "png", out);
        return out.toByteArray();
    }
}
