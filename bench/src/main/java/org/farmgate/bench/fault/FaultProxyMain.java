package org.farmgate.bench.fault;

import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.fault.FaultProxy;
import org.farmgate.testkit.fault.Faults;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

/**
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.fault.FaultProxyMain --target HOST:PORT
 * [--listen [HOST:]PORT] [--latency-ms N] [--jitter-ms N] [--bandwidth-kbps N] [--stall-every-ms N --stall-ms N]
 * [--close-after-bytes N] [--close-after-ms N] [--refuse]}: runs until Ctrl-C, printing what it did every 10 s.
 */
@Command(name = "fault-proxy", mixinStandardHelpOptions = true, description = "A TCP proxy over a bad link.")
public final class FaultProxyMain implements Callable<Integer> {

    @Spec
    private CommandSpec spec;
    @Option(names = "--target", required = true, paramLabel = "HOST:PORT", description = "where to forward to")
    private String target;
    @Option(names = "--listen", defaultValue = "127.0.0.1:0", description = "[HOST:]PORT; port 0: a free one")
    private String listen;
    @Option(names = "--latency-ms", defaultValue = "0", description = "one-way delay added to every chunk")
    private long latencyMs;
    @Option(names = "--jitter-ms", defaultValue = "0", description = "up to this much more, drawn per chunk")
    private long jitterMs;
    @Option(names = "--bandwidth-kbps", defaultValue = "0", description = "cap per direction; 0 for none")
    private long bandwidthKbps;
    @Option(names = "--stall-every-ms", defaultValue = "0", description = "a stall this often; 0 for never")
    private long stallEveryMs;
    @Option(names = "--stall-ms", defaultValue = "0", description = "how long each stall holds every byte back")
    private long stallMs;
    @Option(names = "--close-after-bytes", defaultValue = "0", description = "cut a connection after this many bytes")
    private long closeAfterBytes;
    @Option(names = "--close-after-ms", defaultValue = "0", description = "cut a connection this long after it opened")
    private long closeAfterMs;
    @Option(names = "--refuse", arity = "0..1", description = "reset every connection as soon as it is accepted")
    private boolean refuse;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FaultProxyMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!target.contains(":")) {
            throw new ParameterException(spec.commandLine(), "--target HOST:PORT is required");
        }
        String listenHost = listen.contains(":") ? listen.substring(0, listen.lastIndexOf(':')) : "127.0.0.1";
        int listenPort = Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
        Faults faults = new Faults(Duration.ofMillis(latencyMs), Duration.ofMillis(jitterMs), bandwidthKbps * 1000 / 8,
                Duration.ofMillis(stallEveryMs), Duration.ofMillis(stallMs), closeAfterBytes,
                Duration.ofMillis(closeAfterMs), refuse);
        Vertx vertx = Vertx.vertx();
        FaultProxy proxy = FaultProxy.start(vertx, listenHost, listenPort, target.substring(0, target.lastIndexOf(':')),
                Integer.parseInt(target.substring(target.lastIndexOf(':') + 1)), faults).await(10, TimeUnit.SECONDS);
        System.out.println("fault proxy on " + listenHost + ":" + proxy.port() + " -> " + target + " with " + faults);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> vertx.close().await()));
        vertx.setPeriodic(10_000, id -> {
            FaultProxy.Counters c = proxy.counters();
            System.out.printf("accepted %d, open %d, cut %d, refused %d, %d bytes%n", c.accepted(), c.open(), c.cut(),
                    c.refused(), c.bytes());
        });
        new CountDownLatch(1).await(); // until Ctrl-C: returning would let main's System.exit stop the proxy at once
        return 0;
    }
}
