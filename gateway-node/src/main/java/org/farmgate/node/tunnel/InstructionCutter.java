package org.farmgate.node.tunnel;

import io.vertx.core.buffer.Buffer;
import java.util.Arrays;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * Cuts a byte stream, read in arbitrary chunks, into whole instructions: after each {@link #feed}, the bytes
 * {@code [completeStart, completeEnd)} of {@link #array()} are whole instructions, and the one instruction still
 * incomplete is kept (bounded by the limits) for the next chunk. Chunks are read in place; only an instruction that
 * straddles two chunks is copied.
 */
final class InstructionCutter {

    /** Sees each whole instruction as it is found, with the scanner describing it. */
    interface Visitor {
        void instruction(byte[] bytes, int start, int end, InstructionScanner scanner);
    }

    private static final byte[] EMPTY = new byte[0];

    private final InstructionScanner scanner;
    private byte[] pending = EMPTY;
    private byte[] array = EMPTY;
    private int completeStart;
    private int completeEnd;
    private long instructions;

    InstructionCutter(WireLimits limits) {
        this.scanner = new InstructionScanner(limits);
    }

    void feed(Buffer chunk, Visitor visitor) throws WireFormatException {
        int carried = pending.length;
        int from;
        int to;
        if (carried == 0) {
            Bytes.Slice slice = Bytes.of(chunk);
            array = slice.array();
            from = slice.offset();
            to = from + slice.length();
        } else {
            array = Arrays.copyOf(pending, carried + chunk.length());
            chunk.getBytes(array, carried);
            from = carried;
            to = array.length;
        }
        int start = from - carried;
        completeStart = start;
        while (from < to) {
            int end = scanner.scan(array, from, to);
            if (end < 0) {
                break;
            }
            instructions++;
            visitor.instruction(array, start, end, scanner);
            start = end;
            from = end;
        }
        completeEnd = start;
        pending = start == to ? EMPTY : Arrays.copyOfRange(array, start, to);
    }

    byte[] array() {
        return array;
    }

    int completeStart() {
        return completeStart;
    }

    int completeEnd() {
        return completeEnd;
    }

    int completeLength() {
        return completeEnd - completeStart;
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
