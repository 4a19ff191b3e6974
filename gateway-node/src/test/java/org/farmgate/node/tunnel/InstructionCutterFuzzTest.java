package org.farmgate.node.tunnel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.buffer.Buffer;
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
 * parser reads (and fails where the parser fails), every piece it hands on is whole instructions, what it handed on
 * is never overwritten later (it is written out without a copy), and its copying stays linear.
 */
class InstructionCutterFuzzTest {

    private static final WireLimits LIMITS = new WireLimits(40, 160, 8);

    @FuzzTest(maxDuration = "10s")
    void handsOnWhatTheParserReads(FuzzedDataProvider data) {
        Splits splits = Splits.from(data);
        InstructionCutter cutter = new InstructionCutter(LIMITS);
        ByteArrayOutputStream handedOn = new ByteArrayOutputStream();
        List<byte[]> arrays = new ArrayList<>();
        List<byte[]> copies = new ArrayList<>();
        List<Integer> starts = new ArrayList<>();
        String error = null;
        for (byte[] piece : splits.pieces()) {
            try {
                cutter.feed(Buffer.buffer(piece), (bytes, start, end, scanner) -> { });
            } catch (WireFormatException e) {
                error = e.getMessage();
                break;
            }
            byte[] whole = Arrays.copyOfRange(cutter.array(), cutter.completeStart(), cutter.completeEnd());
            arrays.add(cutter.array());
            starts.add(cutter.completeStart());
            copies.add(whole);
            handedOn.writeBytes(whole);
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
        for (int i = 0; i < copies.size(); i++) {
            byte[] now = Arrays.copyOfRange(arrays.get(i), starts.get(i), starts.get(i) + copies.get(i).length);
            assertArrayEquals(copies.get(i), now, "bytes already handed on were overwritten");
        }
        assertTrue(cutter.bytesCopied() <= 3L * splits.bytes().length + 16, "copied " + cutter.bytesCopied()
                + " bytes for " + splits.bytes().length);
    }
}
