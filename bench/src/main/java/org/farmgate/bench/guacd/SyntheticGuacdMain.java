package org.farmgate.bench.guacd;

import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.bench.Args;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;

/**
 * Runs a synthetic guacd on its own, for trying a node without a real guacd or for load runs:
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.guacd.SyntheticGuacdMain
 * [--host 127.0.0.1] [--port 4822] [--frame-ms 50 --frame-bytes 16384 | --flood 48384] [--memory-mb 0] [--echo-keys]}
 */
public final class SyntheticGuacdMain {

    private SyntheticGuacdMain() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = Args.parse(args);
        SyntheticGuacdOptions guacdOptions = new SyntheticGuacdOptions()
                .memoryPerConnectionMb(Integer.parseInt(options.getOrDefault("memory-mb", "0")))
                .echoKeys(Boolean.parseBoolean(options.getOrDefault("echo-keys", "false")));
        if (options.containsKey("flood")) {
            guacdOptions.flood(Integer.parseInt(options.get("flood")));
        } else if (options.containsKey("frame-ms")) {
            guacdOptions.stream(Duration.ofMillis(Long.parseLong(options.get("frame-ms"))),
                    Integer.parseInt(options.getOrDefault("frame-bytes", "16384")));
        }
        Vertx vertx = Vertx.vertx();
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, options.getOrDefault("host", "127.0.0.1"),
                Integer.parseInt(options.getOrDefault("port", "4822")), guacdOptions, false)
                .await(10, TimeUnit.SECONDS);
        System.out.println("synthetic guacd listening on " + options.getOrDefault("host", "127.0.0.1") + ":"
                + guacd.port());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> vertx.close().await()));
    }
}
