package org.farmgate.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case is fed whole, byte by byte, and in every split into two and three parts, "as if received over the
 * network": the outcome must never depend on where the chunks break, not even inside a multi-byte character.
 */
class GuacamoleParserTest {

    private static final WireLimits LIMITS = WireTables.LIMITS;

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.farmgate.protocol.WireTables#validStreams")
    void parsesInEverySplit(String label, byte[] wire, List<Instruction> expected) throws Exception {
        for (List<byte[]> chunks : WireTables.everySplit(wire)) {
            GuacamoleParser parser = new GuacamoleParser(LIMITS);
            List<Instruction> parsed = new ArrayList<>();
            for (byte[] chunk : chunks) {
                parser.feed(chunk, 0, chunk.length, parsed::add);
            }
            assertEquals(expected, parsed, () -> "split " + WireTables.describe(chunks));
            assertFalse(parser.isInsideInstruction());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.farmgate.protocol.WireTables#invalidStreams")
    void rejectsInEverySplit(String label, byte[] wire, String expectedMessage) {
        for (List<byte[]> chunks : WireTables.everySplit(wire)) {
            GuacamoleParser parser = new GuacamoleParser(LIMITS);
            WireFormatException error = assertThrows(WireFormatException.class, () -> {
                for (byte[] chunk : chunks) {
                    parser.feed(chunk, 0, chunk.length, instruction -> { });
                }
            }, () -> "split " + WireTables.describe(chunks));
            assertTrue(error.getMessage().contains(expectedMessage),
                    () -> "message '" + error.getMessage() + "' lacks '" + expectedMessage + "'");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("org.farmgate.protocol.WireTables#validStreams")
    void encodesWhatItParses(String label, byte[] wire, List<Instruction> expected) {
        StringBuilder encoded = new StringBuilder();
        expected.forEach(instruction -> encoded.append(instruction.encode()));
        // "04.sync;" is the one case whose encoding is canonicalised.
        String canonical = new String(wire, StandardCharsets.UTF_8).replace("04.sync", "4.sync");
        assertEquals(canonical, encoded.toString());
    }

    @Test
    void scannerReportsBoundariesAndOpcodes() throws Exception {
        byte[] wire = WireTables.bytes("5.error,7.Aborted,3.515;0.,4.ping,1.1;10.disconnect;");
        InstructionScanner scanner = new InstructionScanner(LIMITS);
        int first = scanner.scan(wire, 0, wire.length);
        assertEquals(24, first);
        assertTrue(scanner.completedOpcodeIs(WireTables.bytes("error")));
        int second = scanner.scan(wire, first, wire.length);
        assertTrue(scanner.completedIsInternal());
        int third = scanner.scan(wire, second, wire.length);
        assertEquals(wire.length, third);
        assertTrue(scanner.completedOpcodeIs(WireTables.bytes("disconnect")));
        assertFalse(scanner.completedOpcodeIs(WireTables.bytes("disconnec")));
        assertEquals(-1, scanner.scan(wire, third, wire.length));
    }

    @Test
    void opcodeLongerThanTheCaptureNeverMatchesAShorterOne() throws Exception {
        byte[] wire = WireTables.bytes("20.errorerrorerrorerror;");
        InstructionScanner scanner = new InstructionScanner(LIMITS);
        assertEquals(wire.length, scanner.scan(wire, 0, wire.length));
        assertFalse(scanner.completedOpcodeIs(WireTables.bytes("errorerrorerrorerror")));
        assertFalse(scanner.completedOpcodeIs(WireTables.bytes("error")));
        assertFalse(scanner.completedIsInternal());
    }

    @Test
    void staysFailedAfterAnError() {
        InstructionScanner scanner = new InstructionScanner(LIMITS);
        byte[] bad = WireTables.bytes("x");
        assertThrows(WireFormatException.class, () -> scanner.scan(bad, 0, 1));
        byte[] good = WireTables.bytes("3.nop;");
        assertThrows(WireFormatException.class, () -> scanner.scan(good, 0, good.length));
    }

    @Test
    void truncatedStreamIsReportedAsInsideAnInstruction() throws Exception {
        GuacamoleParser parser = new GuacamoleParser(LIMITS);
        assertEquals(List.of(Instruction.of("nop")), parser.feed(WireTables.bytes("3.nop;4.sy")));
        assertTrue(parser.isInsideInstruction());
    }

    @Test
    void guacdLimitsAcceptTheLargestRealHandshake() throws Exception {
        List<String> values = new ArrayList<>();
        values.add(GuacdArguments.VERSION_1_5_0);
        GuacdArguments.RDP.forEach(name -> values.add("x".repeat(40)));
        byte[] connect = new Instruction("connect", values).toBytes();
        assertEquals(1, new GuacamoleParser(WireLimits.GUACD_INBOUND).feed(connect).size());
    }
}
