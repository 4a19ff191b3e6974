package org.farmgate.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.Instruction;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * The wire format under arbitrary input: the parser gives the same instructions and the same error whatever the
 * splits, the scanner alone finds the same boundaries, what is accepted lies within the limits, and encoding then
 * parsing is the identity. Small limits, so that the fuzzer reaches them.
 */
class WireFuzzTest {

    static final WireLimits LIMITS = new WireLimits(40, 160, 8);

    /** What a reader made of a stream. */
    record Reading(List<Instruction> instructions, String error, boolean inside) {
    }

    @FuzzTest(maxDuration = "10s")
    void parserAndScannerAgreeInEverySplit(FuzzedDataProvider data) {
        Splits splits = Splits.from(data);
        Reading whole = parse(List.of(splits.bytes()));
        Reading cut = parse(splits.pieces());
        assertEquals(whole, cut, "the splits changed what was read");

        List<Integer> ends = new ArrayList<>();
        String scanError = scan(splits.pieces(), ends);
        assertEquals(whole.error(), scanError, "the scanner and the parser disagree on validity");
        assertEquals(whole.instructions().size(), ends.size(), "the scanner and the parser disagree on boundaries");

        int start = 0;
        for (int i = 0; i < ends.size(); i++) {
            Instruction instruction = whole.instructions().get(i);
            int length = ends.get(i) - start;
            assertTrue(length <= LIMITS.maxInstructionBytes(), "accepted beyond the byte limit");
            assertTrue(instruction.args().size() + 1 <= LIMITS.maxElements(), "accepted beyond the element limit");
            for (String element : elements(instruction)) {
                assertTrue(element.codePointCount(0, element.length()) <= LIMITS.maxElementLength(),
                        "accepted an element beyond the length limit");
            }
            start = ends.get(i);
        }
        for (Instruction instruction : whole.instructions()) {
            assertEquals(List.of(instruction), parse(List.of(instruction.toBytes())).instructions(),
                    "re-encoding changed an instruction");
        }
    }

    @FuzzTest(maxDuration = "10s")
    void encodingThenParsingIsIdentity(FuzzedDataProvider data) {
        String opcode = data.consumeString(12);
        List<String> args = new ArrayList<>();
        int count = data.consumeInt(0, 6);
        for (int i = 0; i < count; i++) {
            args.add(data.consumeString(30));
        }
        Instruction instruction = new Instruction(opcode, args);
        if (!encodable(instruction)) {
            return; // a lone surrogate has no UTF-8 form: no client can send one
        }
        byte[] wire = instruction.toBytes();
        Reading read = parse(List.of(wire));
        if (wire.length <= LIMITS.maxInstructionBytes()) {
            assertEquals(new Reading(List.of(instruction), null, false), read);
        } else {
            assertTrue(read.error() != null && read.error().contains("limit"), "an instruction over the limit: "
                    + read);
        }
    }

    private static boolean encodable(Instruction instruction) {
        for (String element : elements(instruction)) {
            if (!StandardCharsets.UTF_8.newEncoder().canEncode(element)) {
                return false;
            }
        }
        return true;
    }

    private static List<String> elements(Instruction instruction) {
        List<String> all = new ArrayList<>(instruction.args());
        all.add(0, instruction.opcode());
        return all;
    }

    static Reading parse(List<byte[]> pieces) {
        GuacamoleParser parser = new GuacamoleParser(LIMITS);
        List<Instruction> out = new ArrayList<>();
        try {
            for (byte[] piece : pieces) {
                parser.feed(piece, out::add);
            }
            return new Reading(out, null, parser.isInsideInstruction());
        } catch (WireFormatException e) {
            return new Reading(out, e.getMessage(), true);
        }
    }

    private static String scan(List<byte[]> pieces, List<Integer> ends) {
        InstructionScanner scanner = new InstructionScanner(LIMITS);
        int offset = 0;
        try {
            for (byte[] piece : pieces) {
                int from = 0;
                while (from < piece.length) {
                    int end = scanner.scan(piece, from, piece.length);
                    if (end < 0) {
                        break;
                    }
                    ends.add(offset + end);
                    from = end;
                }
                offset += piece.length;
            }
            return null;
        } catch (WireFormatException e) {
            return e.getMessage();
        }
    }
}
