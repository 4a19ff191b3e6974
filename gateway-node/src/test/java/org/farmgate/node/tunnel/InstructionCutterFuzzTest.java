package org.farmgate.node.tunnel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.farmgate.fuzz.Splits;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * The relay's framing under arbitrary input in arbitrary splits: it hands on exactly the whole instructions the
 * parser reads (and fails where the parser fails), every piece it hands on is whole instructions, the chunks as read
 * hold exactly what it hands on (it is written out from them) and are all let go in the end, and its copying stays
 * linear.
 */
class InstructionCutterFuzzTest {

    private static final WireLimits LIMITS = new WireLimits(40, 160, 8);

    @FuzzTest(maxDuration = "10s")
    void handsOnWhatTheParserReads(FuzzedDataProvider data) {
        Splits splits = Splits.from(data);
        InstructionCutter cutter = InstructionCutter.withSlices(LIMITS);
        ByteArrayOutputStream handedOn = new ByteArrayOutputStream();
        List<ByteBuf> chunks = new ArrayList<>();
        String error = null;
        for (byte[] piece : splits.pieces()) {
            ByteBuf chunk = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(1, piece.length)).writeBytes(piece);
            chunks.add(chunk);
            try {
                cutter.feed(chunk, (bytes, start, end, scanner) -> { });
            } catch (WireFormatException e) {
                error = e.getMessage();
                break;
            } finally {
                if (error == null) {
                    byte[] whole = Arrays.copyOfRange(cutter.array(), cutter.completeStart(), cutter.completeEnd());
                    ByteBuf slice = cutter.slice(cutter.completeStart(), cutter.completeEnd());
                    assertArrayEquals(whole, ByteBufUtil.getBytes(slice), "the chunks as read differ from the cut");
                    slice.release();
                    handedOn.writeBytes(whole);
                }
                chunk.release();
            }
        }
        cutter.release();
        for (ByteBuf chunk : chunks) {
            assertEquals(0, chunk.refCnt(), "a chunk is still held");
        }
        List<Instruction> expected = new ArrayList<>();
        String parserError = null;
        try {
            new GuacamoleParser(LIMITS).feed(splits.bytes(), expected::add);
        } catch (WireFormatException e) {
            parserError = e.getMessage();
        }
        assertEquals(parserError, error, "the cutter and the parser disagree on validity");
        List<Instruction> cut;
        try {
            cut = new GuacamoleParser(LIMITS).feed(handedOn.toByteArray());
        } catch (WireFormatException e) {
            throw new AssertionError("the cutter handed on something the parser refuses", e);
        }
        if (error == null) {
            assertEquals(expected, cut, "the cutter lost, doubled or changed instructions");
        } else {
            // The chunk that fails hands nothing on (the tunnel ends there): what went before is the parser's start.
            assertEquals(expected.subList(0, cut.size()), cut, "the cutter changed instructions before the error");
        }
        assertTrue(cutter.bytesCopied() <= 3L * splits.bytes().length + 16, "copied " + cutter.bytesCopied()
                + " bytes for " + splits.bytes().length);
    }
}
