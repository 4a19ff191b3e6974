package org.farmgate.bench.fault;

import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.bench.Args;
import org.farmgate.testkit.fault.FaultProxy;
import org.farmgate.testkit.fault.Faults;

/**
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.fault.FaultProxyMain --target HOST:PORT
 * [--listen [HOST:]PORT] [--latency-ms N] [--jitter-ms N] [--bandwidth-kbps N] [--stall-every-ms N --stall-ms N]
 * [--close-after-bytes N] [--close-after-ms N] [--refuse]}: runs until Ctrl-C, printing what it did every 10 s.
 */
public final class FaultProxyMain {

    private FaultProxyMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Args.parse(args);
        String target = options.get("target");
        if (target == null || !target.contains(":")) {
            System.err.println("--target HOST:PORT is required");
            System.exit(2);
        }
        String listen = options.getOrDefault("listen", "127.0.0.1:0");
        String listenHost = listen.contains(":") ? listen.substring(0, listen.lastIndexOf(':')) : "127.0.0.1";
        int listenPort = Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
        Faults faults = Faults.parse(options);
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
    }
}
