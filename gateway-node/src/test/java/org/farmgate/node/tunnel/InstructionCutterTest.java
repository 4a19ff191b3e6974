package org.farmgate.node.tunnel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;
import org.farmgate.protocol.WireTables;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The relay's framing, fed the parser's own tables in every split: after each chunk the cutter hands on whole
 * instructions only, the instructions it hands on are exactly those of the stream, nothing is lost or doubled where
 * a chunk breaks, and a bad stream fails with the parser's message.
 */
class InstructionCutterTest {

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.farmgate.protocol.WireTables#validStreams")
    void handsOnWholeInstructionsInEverySplit(String label, byte[] wire, List<Instruction> expected) throws Exception {
        for (List<byte[]> chunks : WireTables.everySplit(wire)) {
            InstructionCutter cutter = new InstructionCutter(WireTables.LIMITS);
            ByteArrayOutputStream handedOn = new ByteArrayOutputStream();
            List<Integer> visited = new ArrayList<>();
            for (byte[] chunk : chunks) {
                cutter.feed(Buffer.buffer(chunk), (bytes, start, end, scanner) -> visited.add(end - start));
                byte[] whole = Arrays.copyOfRange(cutter.array(), cutter.completeStart(), cutter.completeEnd());
                // what one chunk hands on parses on its own: whole instructions, nothing cut
                GuacamoleParser alone = new GuacamoleParser(WireTables.LIMITS);
                alone.feed(whole);
                assertFalse(alone.isInsideInstruction(), () -> "split " + WireTables.describe(chunks));
                handedOn.writeBytes(whole);
            }
            byte[] all = handedOn.toByteArray();
            assertEquals(expected, new GuacamoleParser(WireTables.LIMITS).feed(all),
                    () -> "split " + WireTables.describe(chunks));
            assertEquals(expected.size(), cutter.instructions());
            assertEquals(wire.length, visited.stream().mapToInt(Integer::intValue).sum());
            assertFalse(cutter.isInsideInstruction());
        }
    }

    /**
     * Sent on as read: each instruction, and each run of them a chunk completes, sliced out of the pooled chunks it
     * was read into (an instruction kept across chunks comes out of several), holds exactly its bytes; once the
     * slices are written (released), the reader has released its chunks and the cutter is released, no chunk is
     * held by anyone.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("org.farmgate.protocol.WireTables#validStreams")
    void slicesTheChunksAsReadInEverySplitAndKeepsNone(String label, byte[] wire, List<Instruction> expected)
            throws Exception {
        for (List<byte[]> split : WireTables.everySplit(wire)) {
            InstructionCutter cutter = InstructionCutter.withSlices(WireTables.LIMITS);
            List<ByteBuf> chunks = new ArrayList<>();
            ByteArrayOutputStream sent = new ByteArrayOutputStream();
            List<Instruction> one = new ArrayList<>();
            for (byte[] bytes : split) {
                ByteBuf chunk = PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
                chunks.add(chunk);
                cutter.feed(chunk, (array, start, end, scanner) -> one.add(Instruction.decodeValidated(
                        take(cutter.slice(start, end)), 0, end - start)));
                sent.writeBytes(take(cutter.slice(cutter.completeStart(), cutter.completeEnd())));
                chunk.release(); // the reader's own reference, as ChunkReads lets it go
            }
            assertEquals(expected, one, () -> "split " + WireTables.describe(split));
            assertEquals(expected, new GuacamoleParser(WireTables.LIMITS).feed(sent.toByteArray()),
                    () -> "split " + WireTables.describe(split));
            cutter.release();
            for (ByteBuf chunk : chunks) {
                assertEquals(0, chunk.refCnt(), () -> "a chunk still held after split " + WireTables.describe(split));
            }
        }
    }

    /** The slice's bytes, and the slice released as a write would. */
    private static byte[] take(ByteBuf slice) {
        byte[] bytes = ByteBufUtil.getBytes(slice);
        slice.release();
        return bytes;
    }

    /**
     * A 32 KiB instruction in 1-byte frames used to copy about half a gigabyte; kept as slices of its chunks, it
     * would hold 32 035 of them: past 64 it is copied into a buffer of its own, which doubles as it grows.
     */
    @ParameterizedTest(name = "slices: {0}")
    @ValueSource(booleans = {false, true})
    void anInstructionArrivingAByteAtATimeCostsLinearCopies(boolean slices) throws Exception {
        String blob = "x".repeat(8000);
        byte[] wire = Instruction.of("blob", "1", blob, blob, blob, blob).encode().getBytes();
        InstructionCutter cutter = slices ? InstructionCutter.withSlices(WireLimits.GUACD_INBOUND)
                : new InstructionCutter(WireLimits.GUACD_INBOUND);
        List<Integer> seen = new ArrayList<>();
        List<ByteBuf> chunks = new ArrayList<>();
        byte[] sent = null;
        for (byte b : wire) {
            ByteBuf chunk = PooledByteBufAllocator.DEFAULT.directBuffer(1).writeByte(b);
            chunks.add(chunk);
            cutter.feed(chunk, (bytes, start, end, scanner) -> seen.add(end - start));
            if (slices && cutter.completeLength() > 0) {
                sent = take(cutter.slice(cutter.completeStart(), cutter.completeEnd()));
            }
            chunk.release();
        }
        assertEquals(List.of(wire.length), seen);
        // into the array, and with slices into the kept buffer too: each at most twice what was fed, with its growth
        long bound = (slices ? 5L : 3L) * wire.length;
        assertTrue(cutter.bytesCopied() <= bound, cutter.bytesCopied() + " bytes copied for " + wire.length);
        if (slices) {
            assertArrayEquals(wire, sent);
        }
        cutter.release();
        assertTrue(chunks.stream().allMatch(chunk -> chunk.refCnt() == 0), "a chunk is still held");
    }

    /**
     * Large image frames read in 64 KiB chunks (the benchmark's saturated case): nearly every chunk ends inside a
     * frame, so the chunk goes into the carry and its rest is kept once more. Before the carry kept room for the
     * next chunk, that rest was copied a third time when the next chunk came: 1.9 times what was fed, then 1.5 (not
     * counting Vert.x's copy of every chunk onto the heap). Now every chunk is copied into the cutter's array, where
     * the rest stays until the array is full: 1.1.
     */
    @Test
    void imageFramesReadInChunksAreNotCopiedAgainWhenTheCarryGrows() throws Exception {
        byte[] frame = Instruction.of("img", "1", "x".repeat(48 * 1024)).encode().getBytes();
        byte[] wire = new byte[frame.length * 200];
        for (int i = 0; i < 200; i++) {
            System.arraycopy(frame, 0, wire, i * frame.length, frame.length);
        }
        InstructionCutter cutter = new InstructionCutter(WireLimits.FROM_GUACD);
        feedIn64KiBReads(cutter, wire);
        assertEquals(200, cutter.instructions());
        assertTrue(cutter.bytesCopied() <= 1.2 * wire.length, cutter.bytesCopied() + " bytes copied for "
                + wire.length);
    }

    /** The wire as a socket reads a fast sender's: 64 KiB at a time. */
    private static void feedIn64KiBReads(InstructionCutter cutter, byte[] wire) throws WireFormatException {
        int chunk = 64 * 1024;
        for (int from = 0; from < wire.length; from += chunk) {
            cutter.feed(Buffer.buffer(Arrays.copyOfRange(wire, from, Math.min(wire.length, from + chunk))),
                    (bytes, start, end, scanner) -> { });
        }
    }

    /** A 200 KB instruction grows the array past what a session keeps idle; the next small read lets it go. */
    @Test
    void anArrayGrownForOneLongInstructionIsLetGoOnceItIsDone() throws Exception {
        String part = "x".repeat(50_000);
        byte[] wire = (Instruction.of("blob", "1", part, part, part, part).encode() + "4.sync,1.1;").getBytes();
        InstructionCutter cutter = new InstructionCutter(WireLimits.FROM_GUACD);
        feedIn64KiBReads(cutter, wire);
        assertEquals(2, cutter.instructions());
        assertTrue(cutter.capacity() > InstructionCutter.LARGEST_IDLE_ARRAY, "grown to " + cutter.capacity());
        cutter.feed(Buffer.buffer("4.sync,1.2;".getBytes()), (bytes, start, end, scanner) -> { });
        assertTrue(cutter.capacity() <= InstructionCutter.LARGEST_IDLE_ARRAY, "still " + cutter.capacity());
        assertEquals(3, cutter.instructions());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.farmgate.protocol.WireTables#invalidStreams")
    void failsWithTheParsersMessageInEverySplit(String label, byte[] wire, String expectedMessage) {
        for (List<byte[]> chunks : WireTables.everySplit(wire)) {
            InstructionCutter cutter = new InstructionCutter(WireTables.LIMITS);
            WireFormatException error = assertThrows(WireFormatException.class, () -> {
                for (byte[] chunk : chunks) {
                    cutter.feed(Buffer.buffer(chunk), (bytes, start, end, scanner) -> { });
                }
            }, () -> "split " + WireTables.describe(chunks));
            assertTrue(error.getMessage().contains(expectedMessage),
                    () -> "message '" + error.getMessage() + "' lacks '" + expectedMessage + "'");
        }
    }
}
