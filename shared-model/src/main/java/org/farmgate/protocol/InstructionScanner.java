package org.farmgate.protocol;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Finds instruction boundaries in a Guacamole byte stream without decoding it, for the relay's hot path.
 *
 * <p>The stream is fed as it arrives, split anywhere, even inside a multi-byte UTF-8 character: all state lives in
 * fields, so a chunk boundary is never special. Element lengths count Unicode code points, as guacd counts them,
 * so the scanner counts UTF-8 lead bytes, and validates the UTF-8 on the way (every text frame a node sends must be
 * valid UTF-8, and a byte count would break on the first non-ASCII password).
 *
 * <p>Only the first few bytes of each opcode are kept, enough to tell {@code error} from {@code sync} or an internal
 * instruction (empty opcode) from the rest; everything else is skipped a word of eight ASCII bytes at a time (one
 * load and one mask per word: HotSpot 17 does not vectorise a byte loop that can stop early), and once a word was
 * all ASCII, a block of eight words at a time (one branch per 64 bytes, the loads issued together): image data, all
 * base64, is scanned at the speed of the cache, three times faster than a word at a time ({@code ScannerBenchmark} in
 * bench/RESULTS.md), and text dense with non-ASCII characters, whose runs rarely fill a word, is not slowed.
 *
 * <p>After the first {@link WireFormatException} the scanner stays failed: a stream that lost its framing cannot be
 * resynchronised.
 */
public final class InstructionScanner {

    private static final int LENGTH = 0;
    private static final int VALUE = 1;
    private static final int TERMINATOR = 2;

    /** Longer opcodes are only known to be "long"; every opcode the node acts on is shorter. */
    private static final int OPCODE_CAPTURE = 16;

    private static final VarHandle WORDS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    /** The top bit of each of a word's eight bytes: all clear when all eight are ASCII. */
    private static final long NON_ASCII = 0x8080808080808080L;
    /** Eight words tested at once; a block with a non-ASCII byte is walked again, a word then a byte at a time. */
    private static final int BLOCK = 8 * Long.BYTES;

    private final WireLimits limits;

    private int state = LENGTH;
    private int elementIndex;
    private int instructionBytes;
    private int length;
    private int digits;
    private int remainingCodePoints;
    private int pendingContinuations;
    private int continuationMin;
    private int continuationMax;

    private byte[] opcode = new byte[OPCODE_CAPTURE];
    private int opcodeBytes;
    private byte[] completedOpcode = new byte[OPCODE_CAPTURE];
    private int completedOpcodeBytes = -1;

    private WireFormatException failure;

    public InstructionScanner(WireLimits limits) {
        this.limits = limits;
    }

    /**
     * Consumes bytes up to the end of the next complete instruction.
     *
     * @return the index just past that instruction's {@code ;}, or -1 when {@code [from, to)} ended inside an
     *     instruction; then every byte was consumed and the next call continues where this one stopped
     * @throws WireFormatException if the bytes are not a valid instruction stream within the limits
     */
    public int scan(byte[] bytes, int from, int to) throws WireFormatException {
        if (failure != null) {
            throw failure;
        }
        int i = from;
        while (i < to) {
            if (state == VALUE) {
                i = scanValue(bytes, i, to);
                continue;
            }
            byte b = bytes[i++];
            if (++instructionBytes > limits.maxInstructionBytes()) {
                throw fail("instruction is longer than the limit of " + limits.maxInstructionBytes() + " bytes");
            }
            if (state == LENGTH) {
                scanLength(b);
            } else if (b == ',') {
                if (++elementIndex >= limits.maxElements()) {
                    throw fail("instruction has more than the limit of " + limits.maxElements() + " elements");
                }
                state = LENGTH;
                length = 0;
                digits = 0;
            } else if (b == ';') {
                completeInstruction();
                return i;
            } else {
                throw fail("expected ',' or ';' after element " + elementIndex + ", found " + describe(b));
            }
        }
        return -1;
    }

    /** Whether bytes of an unfinished instruction have been consumed (a stream ending now would be truncated). */
    public boolean isInsideInstruction() {
        return instructionBytes > 0;
    }

    /** Whether the instruction last completed by {@link #scan} has exactly this (ASCII) opcode. */
    public boolean completedOpcodeIs(byte[] asciiOpcode) {
        return asciiOpcode.length <= OPCODE_CAPTURE
                && completedOpcodeBytes == asciiOpcode.length
                && Arrays.equals(completedOpcode, 0, completedOpcodeBytes, asciiOpcode, 0, asciiOpcode.length);
    }

    /** Whether the instruction last completed has an empty opcode: the tunnel's own, never meant for guacd. */
    public boolean completedIsInternal() {
        return completedOpcodeBytes == 0;
    }

    private void scanLength(byte b) throws WireFormatException {
        if (b >= '0' && b <= '9') {
            length = length * 10 + (b - '0');
            digits++;
            if (length > limits.maxElementLength()) {
                throw fail("element " + elementIndex + " declares " + length + " characters, over the limit of "
                        + limits.maxElementLength());
            }
            // Every code point takes at least one byte, so the declared length alone can prove the element too big.
            if (instructionBytes + length >= limits.maxInstructionBytes()) {
                throw fail("element " + elementIndex + " declares " + length + " characters, more than fit in the "
                        + "limit of " + limits.maxInstructionBytes() + " bytes per instruction");
            }
        } else if (b == '.') {
            if (digits == 0) {
                throw fail("element " + elementIndex + " has no length before '.'");
            }
            remainingCodePoints = length;
            pendingContinuations = 0;
            state = length == 0 ? TERMINATOR : VALUE;
        } else {
            throw fail("expected a digit or '.' in the length of element " + elementIndex + ", found " + describe(b));
        }
    }

    private int scanValue(byte[] bytes, int from, int to) throws WireFormatException {
        int budget = limits.maxInstructionBytes() - instructionBytes;
        int end = to - from > budget ? from + budget : to;
        int remaining = remainingCodePoints;
        int continuations = pendingContinuations;
        int i = from;
        while (i < end) {
            if (continuations == 0) {
                if (remaining == 0) {
                    break;
                }
                // Fast path: runs of ASCII (all of base64 image data), a word at a time, then the last few bytes.
                int asciiEnd = Math.min(end, i + remaining);
                int start = i;
                while (asciiEnd - i >= Long.BYTES && ((long) WORDS.get(bytes, i) & NON_ASCII) == 0) {
                    i += Long.BYTES;
                    while (asciiEnd - i >= BLOCK && (((long) WORDS.get(bytes, i) | (long) WORDS.get(bytes, i + 8)
                            | (long) WORDS.get(bytes, i + 16) | (long) WORDS.get(bytes, i + 24)
                            | (long) WORDS.get(bytes, i + 32) | (long) WORDS.get(bytes, i + 40)
                            | (long) WORDS.get(bytes, i + 48) | (long) WORDS.get(bytes, i + 56)) & NON_ASCII) == 0) {
                        i += BLOCK;
                    }
                }
                while (i < asciiEnd && bytes[i] >= 0) {
                    i++;
                }
                remaining -= i - start;
                if (i == asciiEnd) {
                    continue;
                }
                continuations = leadByte(bytes[i] & 0xFF);
                remaining--;
                i++;
            } else {
                int u = bytes[i] & 0xFF;
                if (u < continuationMin || u > continuationMax) {
                    throw fail("invalid UTF-8: byte 0x" + hex(u) + " in element " + elementIndex
                            + " where a continuation byte was expected");
                }
                continuationMin = 0x80;
                continuationMax = 0xBF;
                continuations--;
                i++;
            }
        }
        if (elementIndex == 0) {
            captureOpcode(bytes, from, i);
        }
        instructionBytes += i - from;
        remainingCodePoints = remaining;
        pendingContinuations = continuations;
        if (remaining == 0 && continuations == 0) {
            state = TERMINATOR;
        } else if (i == end && end < to) {
            throw fail("instruction is longer than the limit of " + limits.maxInstructionBytes() + " bytes");
        }
        return i;
    }

    /** Validates a UTF-8 lead byte and returns how many continuation bytes follow (RFC 3629, table 3-7). */
    private int leadByte(int u) throws WireFormatException {
        continuationMin = 0x80;
        continuationMax = 0xBF;
        if (u >= 0xC2 && u <= 0xDF) {
            return 1;
        }
        if (u >= 0xE0 && u <= 0xEF) {
            if (u == 0xE0) {
                continuationMin = 0xA0; // overlong
            } else if (u == 0xED) {
                continuationMax = 0x9F; // UTF-16 surrogates
            }
            return 2;
        }
        if (u >= 0xF0 && u <= 0xF4) {
            if (u == 0xF0) {
                continuationMin = 0x90; // overlong
            } else if (u == 0xF4) {
                continuationMax = 0x8F; // beyond U+10FFFF
            }
            return 3;
        }
        throw fail("invalid UTF-8: byte 0x" + hex(u) + " in element " + elementIndex);
    }

    private void captureOpcode(byte[] bytes, int from, int to) {
        int n = Math.min(to - from, OPCODE_CAPTURE + 1 - opcodeBytes);
        if (n > 0) {
            System.arraycopy(bytes, from, opcode, opcodeBytes, Math.min(n, OPCODE_CAPTURE - opcodeBytes));
            opcodeBytes += n;
        }
    }

    private void completeInstruction() {
        byte[] swap = completedOpcode;
        completedOpcode = opcode;
        completedOpcodeBytes = opcodeBytes;
        opcode = swap;
        opcodeBytes = 0;
        state = LENGTH;
        elementIndex = 0;
        instructionBytes = 0;
        length = 0;
        digits = 0;
    }

    private WireFormatException fail(String message) {
        failure = new WireFormatException(message);
        return failure;
    }

    private static String describe(byte b) {
        int u = b & 0xFF;
        return u >= 0x20 && u < 0x7F ? "'" + (char) u + "'" : "byte 0x" + hex(u);
    }

    private static String hex(int u) {
        return String.format("%02X", u);
    }
}
