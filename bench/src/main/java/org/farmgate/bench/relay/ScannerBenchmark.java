package org.farmgate.bench.relay;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The relay's framing and UTF-8 check alone, per byte of guacd's output: an image frame (base64, all ASCII) and a
 * text-heavy one (a non-ASCII character every 16). {@code java -cp bench/target/farmgate-bench.jar
 * org.openjdk.jmh.Main ScannerBenchmark}; with an older node jar first on the class path, its scanner is measured.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ScannerBenchmark {

    private static final int VALUE_CHARS = 48 * 1024;

    @Param({"image", "text"})
    public String content;

    private byte[] instruction;
    private InstructionScanner scanner;

    @Setup
    public void build() {
        String value = content.equals("image") ? "iVBORw0KGgoAAAAN".repeat(VALUE_CHARS / 16)
                : "Grüße aus Köln, ".repeat(VALUE_CHARS / 16);
        instruction = ("3.img,1.1," + value.length() + "." + value + ";").getBytes(StandardCharsets.UTF_8);
        scanner = new InstructionScanner(new WireLimits(VALUE_CHARS, 4 * VALUE_CHARS, 16));
    }

    /** One whole instruction, as one chunk: the time per call divided by its size is the cost per byte. */
    @Benchmark
    public int scan() throws WireFormatException {
        return scanner.scan(instruction, 0, instruction.length);
    }
}
