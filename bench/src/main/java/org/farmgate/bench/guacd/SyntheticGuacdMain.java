package org.farmgate.bench.guacd;

import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.farmgate.testkit.guacd.SyntheticGuacd;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Runs a synthetic guacd on its own, for trying a node without a real guacd or for load runs:
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.guacd.SyntheticGuacdMain
 * [--host 127.0.0.1] [--port 4822] [--frame-ms 50 --frame-bytes 16384 | --flood 48384] [--memory-mb 0] [--echo-keys]}
 */
@Command(name = "synthetic-guacd", mixinStandardHelpOptions = true, description = "A synthetic guacd, until Ctrl-C.")
public final class SyntheticGuacdMain implements Callable<Integer> {

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "the address to listen on")
    private String host;
    @Option(names = "--port", defaultValue = "4822", description = "the port to listen on; 0 for any free one")
    private int port;
    @Option(names = "--frame-ms", description = "a frame this often; default: the first screen only")
    private Long frameMs;
    @Option(names = "--frame-bytes", defaultValue = "16384", description = "image bytes per --frame-ms frame")
    private int frameBytes;
    @Option(names = "--flood", paramLabel = "BYTES", description = "frames of this size back to back instead")
    private Integer flood;
    @Option(names = "--memory-mb", defaultValue = "0", description = "memory each connection holds, as guacd's do")
    private int memoryMb;
    @Option(names = "--echo-keys", arity = "0..1", description = "answer each key press with a small frame at once")
    private boolean echoKeys;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SyntheticGuacdMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        SyntheticGuacdOptions options = new SyntheticGuacdOptions().memoryPerConnectionMb(memoryMb).echoKeys(echoKeys);
        if (flood != null) {
            options.flood(flood);
        } else if (frameMs != null) {
            options.stream(Duration.ofMillis(frameMs), frameBytes);
        }
        Vertx vertx = Vertx.vertx();
        SyntheticGuacd guacd = SyntheticGuacd.start(vertx, host, port, options, false).await(10, TimeUnit.SECONDS);
        System.out.println("synthetic guacd listening on " + host + ":" + guacd.port());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> vertx.close().await()));
        new CountDownLatch(1).await(); // until Ctrl-C: returning would let main's System.exit stop guacd at once
        return 0;
    }
}
