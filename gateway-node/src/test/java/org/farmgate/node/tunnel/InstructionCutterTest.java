package org.farmgate.node.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
            List<HandedOn> written = new ArrayList<>();
            for (byte[] chunk : chunks) {
                cutter.feed(Buffer.buffer(chunk), (bytes, start, end, scanner) -> visited.add(end - start));
                byte[] whole = Arrays.copyOfRange(cutter.array(), cutter.completeStart(),
                        cutter.completeEnd());
                written.add(new HandedOn(cutter.array(), cutter.completeStart(), whole));
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
            // What was handed on is written out without a copy: later chunks must not have overwritten it.
            for (HandedOn out : written) {
                assertEquals(new String(out.bytes()), new String(Arrays.copyOfRange(out.array(), out.start(),
                        out.start() + out.bytes().length)), () -> "split " + WireTables.describe(chunks));
            }
        }
    }

    private record HandedOn(byte[] array, int start, byte[] bytes) {
    }

    /** A 32 KiB instruction in 1-byte frames used to copy about half a gigabyte. */
    @Test
    void anInstructionArrivingAByteAtATimeCostsLinearCopies() throws Exception {
        String blob = "x".repeat(8000);
        byte[] wire = Instruction.of("blob", "1", blob, blob, blob, blob).encode().getBytes();
        InstructionCutter cutter = new InstructionCutter(WireLimits.GUACD_INBOUND);
        List<Integer> seen = new ArrayList<>();
        for (byte b : wire) {
            cutter.feed(Buffer.buffer(new byte[] {b}), (bytes, start, end, scanner) -> seen.add(end - start));
        }
        assertEquals(List.of(wire.length), seen);
        assertTrue(cutter.bytesCopied() <= 3L * wire.length, cutter.bytesCopied() + " bytes copied for "
                + wire.length);
    }

    /**
     * Large image frames read in 64 KiB chunks (the benchmark's saturated case): nearly every chunk ends inside a
     * frame, so the chunk goes into the carry and its rest is kept once more. Before the carry kept room for the
     * next chunk, that rest was copied a third time when the next chunk came: 1.9 times what was fed, now 1.5.
     */
    @Test
    void imageFramesReadInChunksAreNotCopiedAgainWhenTheCarryGrows() throws Exception {
        byte[] frame = Instruction.of("img", "1", "x".repeat(48 * 1024)).encode().getBytes();
        byte[] wire = new byte[frame.length * 200];
        for (int i = 0; i < 200; i++) {
            System.arraycopy(frame, 0, wire, i * frame.length, frame.length);
        }
        InstructionCutter cutter = new InstructionCutter(WireLimits.FROM_GUACD);
        int chunk = 64 * 1024;
        for (int from = 0; from < wire.length; from += chunk) {
            cutter.feed(Buffer.buffer(Arrays.copyOfRange(wire, from, Math.min(wire.length, from + chunk))),
                    (bytes, start, end, scanner) -> { });
        }
        assertEquals(200, cutter.instructions());
        assertTrue(cutter.bytesCopied() <= 1.6 * wire.length, cutter.bytesCopied() + " bytes copied for "
                + wire.length);
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
