package org.farmgate.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every case is fed whole, byte by byte, and in every split into two and three parts, "as if received over the
 * network": the outcome must never depend on where the chunks break, not even inside a multi-byte character.
 */
class GuacamoleParserTest {

    private static final WireLimits LIMITS = new WireLimits(100, 256, 16);

    static Stream<Arguments> validStreams() {
        return Stream.of(
                valid("4.sync,8.12345678;", Instruction.of("sync", "12345678")),
                valid("5.audio;", Instruction.of("audio")),
                valid("0.,4.ping,13.1700000000000;", Instruction.of("", "ping", "1700000000000")),
                valid("4.size,0.,1.1;", Instruction.of("size", "", "1")),
                valid("3.nop;4.sync,1.1;", Instruction.of("nop"), Instruction.of("sync", "1")),
                valid("04.sync;", Instruction.of("sync")),
                valid("4.name,1.é;", Instruction.of("name", "é")),
                valid("4.name,2.中文;", Instruction.of("name", "中文")),
                valid("8.password,1.😀;", Instruction.of("password", "😀")),
                valid("3.key,7.日本語ab😀é;", Instruction.of("key", "日本語ab😀é")),
                valid("5.error,7.a,b;c.d,3.769;", Instruction.of("error", "a,b;c.d", "769")),
                valid("4.blob,1.1,24.iVBORw0KGgoAAAANSUhEUgAA;3.end,1.1;",
                        Instruction.of("blob", "1", "iVBORw0KGgoAAAANSUhEUgAA"), Instruction.of("end", "1")));
    }

    static Stream<Arguments> invalidStreams() {
        return Stream.of(
                invalid("4.syncx", "expected ',' or ';' after element 0, found 'x'"),
                invalid(".sync;", "element 0 has no length before '.'"),
                invalid("4.sync,a.b;", "expected a digit or '.' in the length of element 1, found 'a'"),
                invalid("5.mouse,9.1,1.0;4.sync,1.1;", "expected ',' or ';' after element 1, found 'y'"),
                invalid("4.name,999.x;", "element 1 declares 999 characters, over the limit of 100"),
                invalid("4.name,1.x;4.sync,101.", "element 1 declares 101 characters, over the limit of 100"),
                invalid("4.name,90." + "x".repeat(90) + ",90." + "y".repeat(90) + ",90.",
                        "element 3 declares 90 characters, more than fit in the limit of 256 bytes"),
                invalid("1.a" + ",0.".repeat(16) + ";", "instruction has more than the limit of 16 elements"),
                invalid("4.name,90." + "中".repeat(90) + ";", "instruction is longer than the limit of 256 bytes"),
                invalidBytes(bytes("4.name,1."), new byte[] {(byte) 0xC0, (byte) 0x80}, bytes(";")),
                invalidBytes(bytes("4.name,1."), new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, bytes(";")),
                invalidBytes(bytes("4.name,1."), new byte[] {(byte) 0xF5, (byte) 0x80, (byte) 0x80}, bytes(";")),
                invalidBytes(bytes("4.name,1."), new byte[] {(byte) 0x80}, bytes(";")),
                invalidBytes(bytes("4.name,2."), new byte[] {(byte) 0xE4, (byte) 0x41, (byte) 0x41}, bytes(";")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validStreams")
    void parsesInEverySplit(String label, byte[] wire, List<Instruction> expected) throws Exception {
        for (List<byte[]> chunks : everySplit(wire)) {
            GuacamoleParser parser = new GuacamoleParser(LIMITS);
            List<Instruction> parsed = new ArrayList<>();
            for (byte[] chunk : chunks) {
                parser.feed(chunk, 0, chunk.length, parsed::add);
            }
            assertEquals(expected, parsed, () -> "split " + describe(chunks));
            assertFalse(parser.isInsideInstruction());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidStreams")
    void rejectsInEverySplit(String label, byte[] wire, String expectedMessage) {
        for (List<byte[]> chunks : everySplit(wire)) {
            GuacamoleParser parser = new GuacamoleParser(LIMITS);
            WireFormatException error = assertThrows(WireFormatException.class, () -> {
                for (byte[] chunk : chunks) {
                    parser.feed(chunk, 0, chunk.length, instruction -> { });
                }
            }, () -> "split " + describe(chunks));
            assertTrue(error.getMessage().contains(expectedMessage),
                    () -> "message '" + error.getMessage() + "' lacks '" + expectedMessage + "'");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("validStreams")
    void encodesWhatItParses(String label, byte[] wire, List<Instruction> expected) {
        StringBuilder encoded = new StringBuilder();
        expected.forEach(instruction -> encoded.append(instruction.encode()));
        // "04.sync;" is the one case whose encoding is canonicalised.
        String canonical = new String(wire, StandardCharsets.UTF_8).replace("04.sync", "4.sync");
        assertEquals(canonical, encoded.toString());
    }

    @Test
    void scannerReportsBoundariesAndOpcodes() throws Exception {
        byte[] wire = bytes("5.error,7.Aborted,3.515;0.,4.ping,1.1;10.disconnect;");
        InstructionScanner scanner = new InstructionScanner(LIMITS);
        int first = scanner.scan(wire, 0, wire.length);
        assertEquals(24, first);
        assertTrue(scanner.completedOpcodeIs(bytes("error")));
        int second = scanner.scan(wire, first, wire.length);
        assertTrue(scanner.completedIsInternal());
        int third = scanner.scan(wire, second, wire.length);
        assertEquals(wire.length, third);
        assertTrue(scanner.completedOpcodeIs(bytes("disconnect")));
        assertFalse(scanner.completedOpcodeIs(bytes("disconnec")));
        assertEquals(-1, scanner.scan(wire, third, wire.length));
    }

    @Test
    void opcodeLongerThanTheCaptureNeverMatchesAShorterOne() throws Exception {
        byte[] wire = bytes("20.errorerrorerrorerror;");
        InstructionScanner scanner = new InstructionScanner(LIMITS);
        assertEquals(wire.length, scanner.scan(wire, 0, wire.length));
        assertFalse(scanner.completedOpcodeIs(bytes("errorerrorerrorerror")));
        assertFalse(scanner.completedOpcodeIs(bytes("error")));
        assertFalse(scanner.completedIsInternal());
    }

    @Test
    void staysFailedAfterAnError() {
        InstructionScanner scanner = new InstructionScanner(LIMITS);
        byte[] bad = bytes("x");
        assertThrows(WireFormatException.class, () -> scanner.scan(bad, 0, 1));
        byte[] good = bytes("3.nop;");
        assertThrows(WireFormatException.class, () -> scanner.scan(good, 0, good.length));
    }

    @Test
    void truncatedStreamIsReportedAsInsideAnInstruction() throws Exception {
        GuacamoleParser parser = new GuacamoleParser(LIMITS);
        assertEquals(List.of(Instruction.of("nop")), parser.feed(bytes("3.nop;4.sy")));
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

    // --- table helpers ---

    private static Arguments valid(String wire, Instruction... expected) {
        return Arguments.of(wire, bytes(wire), Arrays.asList(expected));
    }

    private static Arguments invalid(String wire, String message) {
        return Arguments.of(wire, bytes(wire), message);
    }

    private static Arguments invalidBytes(byte[]... parts) {
        byte[] wire = concat(parts);
        StringBuilder label = new StringBuilder();
        for (byte b : wire) {
            label.append(b >= 0x20 && b < 0x7F ? String.valueOf((char) b) : String.format("\\x%02X", b & 0xFF));
        }
        return Arguments.of(label.toString(), wire, "invalid UTF-8");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] part : parts) {
            n += part.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, at, part.length);
            at += part.length;
        }
        return out;
    }

    /** Whole, byte by byte, and every split into two and into three non-empty parts. */
    static List<List<byte[]>> everySplit(byte[] wire) {
        List<List<byte[]>> splits = new ArrayList<>();
        splits.add(List.of(wire));
        List<byte[]> single = new ArrayList<>();
        for (byte b : wire) {
            single.add(new byte[] {b});
        }
        splits.add(single);
        for (int i = 1; i < wire.length; i++) {
            splits.add(List.of(Arrays.copyOfRange(wire, 0, i), Arrays.copyOfRange(wire, i, wire.length)));
            for (int j = i + 1; j < wire.length; j++) {
                splits.add(List.of(Arrays.copyOfRange(wire, 0, i), Arrays.copyOfRange(wire, i, j),
                        Arrays.copyOfRange(wire, j, wire.length)));
            }
        }
        return splits;
    }

    private static String describe(List<byte[]> chunks) {
        StringBuilder out = new StringBuilder();
        for (byte[] chunk : chunks) {
            out.append('[').append(new String(chunk, StandardCharsets.UTF_8)).append(']');
        }
        return out.toString();
    }
}
