package org.farmgate.node.tunnel;

import io.vertx.core.buffer.Buffer;
import java.util.Arrays;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * Cuts a byte stream, read in arbitrary chunks, into whole instructions: after each {@link #feed}, the first
 * {@link #completeLength()} bytes of {@link #bytes()} are whole instructions, and the one instruction still
 * incomplete is kept (bounded by the limits) for the next chunk.
 */
final class InstructionCutter {

    /** Sees each whole instruction as it is found, with the scanner describing it. */
    interface Visitor {
        void instruction(byte[] bytes, int start, int end, InstructionScanner scanner);
    }

    private static final byte[] EMPTY = new byte[0];

    private final InstructionScanner scanner;
    private byte[] pending = EMPTY;
    private byte[] bytes = EMPTY;
    private int completeLength;
    private long instructions;

    InstructionCutter(WireLimits limits) {
        this.scanner = new InstructionScanner(limits);
    }

    void feed(Buffer chunk, Visitor visitor) throws WireFormatException {
        int carried = pending.length;
        if (carried == 0) {
            bytes = chunk.getBytes();
        } else {
            bytes = Arrays.copyOf(pending, carried + chunk.length());
            chunk.getBytes(bytes, carried);
        }
        int start = 0;
        int from = carried;
        while (from < bytes.length) {
            int end = scanner.scan(bytes, from, bytes.length);
            if (end < 0) {
                break;
            }
            instructions++;
            visitor.instruction(bytes, start, end, scanner);
            start = end;
            from = end;
        }
        completeLength = start;
        pending = start == bytes.length ? EMPTY : Arrays.copyOfRange(bytes, start, bytes.length);
    }

    byte[] bytes() {
        return bytes;
    }

    int completeLength() {
        return completeLength;
    }

    /** Whole instructions seen so far. */
    long instructions() {
        return instructions;
    }

    /** Whether the stream so far ends inside an instruction. */
    boolean isInsideInstruction() {
        return scanner.isInsideInstruction();
    }
}
