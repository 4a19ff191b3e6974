package org.farmgate.testkit.client;

import io.vertx.core.buffer.Buffer;
import java.util.function.Consumer;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * The reading side of a Guacamole client, for measurements: every byte is framed into instructions (a real client
 * parses everything it gets), and when asked, every {@code sync} is answered at once, as guacamole-common-js does
 * after drawing a frame.
 */
public final class StreamReader {

    private final InstructionScanner scanner = new InstructionScanner(WireLimits.FROM_GUACD);
    private final GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);
    private final Consumer<String> answer;
    private volatile long bytes;
    private volatile long instructions;

    /** @param answer where to send {@code sync} answers, or null to only count */
    public StreamReader(Consumer<String> answer) {
        this.answer = answer;
    }

    public void accept(Buffer chunk) {
        byte[] data = chunk.getBytes();
        try {
            if (answer == null) {
                int from = 0;
                int end;
                long found = 0;
                while ((end = scanner.scan(data, from, data.length)) >= 0) {
                    found++;
                    from = end;
                }
                instructions += found;
            } else {
                parser.feed(data, 0, data.length, this::onInstruction);
            }
        } catch (WireFormatException e) {
            throw new IllegalStateException("the stream broke: " + e.getMessage(), e);
        }
        bytes += data.length;
    }

    private void onInstruction(Instruction instruction) {
        instructions++;
        if (instruction.opcode().equals("sync")) {
            answer.accept(Instruction.of("sync", instruction.arg(0)).encode());
        }
    }

    public long bytes() {
        return bytes;
    }

    public long instructions() {
        return instructions;
    }
}
