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
 * straddles two chunks is copied, into a carry buffer that grows by doubling, so an instruction arriving a byte per
 * chunk costs linear time, not quadratic. The bytes handed on are written out without a copy, so an array once
 * handed on is never written again: the carry moves to a new array when an instruction completes in it.
 */
final class InstructionCutter {

    /** Sees each whole instruction as it is found, with the scanner describing it. */
    interface Visitor {
        void instruction(byte[] bytes, int start, int end, InstructionScanner scanner);
    }

    private static final byte[] EMPTY = new byte[0];

    private final InstructionScanner scanner;
    /** The start of the instruction still incomplete, at {@code [0, carried)}. */
    private byte[] carry = EMPTY;
    private int carried;
    private long copied;
    private byte[] array = EMPTY;
    private int completeStart;
    private int completeEnd;
    private long instructions;

    InstructionCutter(WireLimits limits) {
        this.scanner = new InstructionScanner(limits);
    }

    void feed(Buffer chunk, Visitor visitor) throws WireFormatException {
        int from;
        int to;
        int start;
        if (carried == 0) {
            Bytes.Slice slice = Bytes.of(chunk);
            array = slice.array();
            from = slice.offset();
            to = from + slice.length();
            start = from;
        } else {
            int needed = carried + chunk.length();
            if (needed > carry.length) {
                carry = Arrays.copyOf(carry, Math.max(needed, 2 * carry.length));
                copied += carried;
            }
            chunk.getBytes(carry, carried);
            copied += chunk.length();
            array = carry;
            from = carried;
            to = needed;
            start = 0;
        }
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
        keep(start, to, chunk.length());
    }

    /**
     * Keeps {@code [start, to)} of the array, the incomplete rest, for the next chunk. The new carry has room for
     * a chunk like this one besides: relaying guacd's large image frames, nearly every chunk ends inside one, and a
     * carry of twice the rest grew (a second copy of the rest) on the next chunk every time.
     */
    private void keep(int start, int to, int chunkLength) {
        if (start == to) {
            carried = 0;
        } else if (array == carry && start == 0) {
            carried = to; // nothing handed on: the carry may grow in place
        } else {
            // a chunk's array is not ours, and a carry that handed bytes on must not be written again
            int length = to - start;
            carry = new byte[Math.max(2 * length, length + chunkLength)];
            System.arraycopy(array, start, carry, 0, length);
            carried = length;
            copied += length;
        }
    }

    /** Bytes copied so far: linear in what was fed, whatever the chunking (see the test). */
    long bytesCopied() {
        return copied;
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
