package org.farmgate.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Turns a Guacamole byte stream, fed in chunks split anywhere, into decoded {@link Instruction}s.
 *
 * <p>Framing and validation are the {@link InstructionScanner}'s; this class only keeps the bytes of the one
 * instruction still incomplete, which the scanner's limits bound.
 */
public final class GuacamoleParser {

    private final InstructionScanner scanner;
    private byte[] partial = new byte[64];
    private int partialLength;

    public GuacamoleParser(WireLimits limits) {
        this.scanner = new InstructionScanner(limits);
    }

    /** Feeds a chunk; every instruction it completes goes to {@code sink}, in order. */
    public void feed(byte[] bytes, int offset, int length, Consumer<Instruction> sink) throws WireFormatException {
        feedUntil(bytes, offset, length, instruction -> {
            sink.accept(instruction);
            return true;
        });
    }

    /**
     * Feeds a chunk until {@code sink} answers false, so that a caller can hand the rest of the stream, byte for
     * byte, to somebody else (the end of a handshake).
     *
     * @return the index just past the instruction that stopped it, or {@code offset + length}
     */
    public int feedUntil(byte[] bytes, int offset, int length, Predicate<Instruction> sink)
            throws WireFormatException {
        int i = offset;
        int to = offset + length;
        while (i < to) {
            int end = scanner.scan(bytes, i, to);
            if (end < 0) {
                keep(bytes, i, to);
                return to;
            }
            Instruction instruction;
            if (partialLength == 0) {
                instruction = Instruction.decodeValidated(bytes, i, end);
            } else {
                keep(bytes, i, end);
                instruction = Instruction.decodeValidated(partial, 0, partialLength);
                partialLength = 0;
            }
            i = end;
            if (!sink.test(instruction)) {
                return i;
            }
        }
        return to;
    }

    public void feed(byte[] bytes, Consumer<Instruction> sink) throws WireFormatException {
        feed(bytes, 0, bytes.length, sink);
    }

    /** Convenience for tests and tools: every instruction the chunk completes. */
    public List<Instruction> feed(byte[] bytes) throws WireFormatException {
        List<Instruction> out = new ArrayList<>();
        feed(bytes, 0, bytes.length, out::add);
        return out;
    }

    /** Whether the stream so far ends inside an instruction. */
    public boolean isInsideInstruction() {
        return scanner.isInsideInstruction();
    }

    private void keep(byte[] bytes, int from, int to) {
        int n = to - from;
        if (partialLength + n > partial.length) {
            partial = Arrays.copyOf(partial, Math.max(partial.length * 2, partialLength + n));
        }
        System.arraycopy(bytes, from, partial, partialLength, n);
        partialLength += n;
    }
}
