package org.farmgate.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The wire tables every reader of Guacamole instructions is tested with, in the style of guacamole-common's
 * {@code GuacamoleParserTest}: valid and invalid streams, each to be fed whole, byte by byte and in every split into
 * two and three parts, since "anything can happen on the network". Shared (as this module's test jar) by the parser,
 * the relay's instruction cutter and the tunnel tests, so that every reader agrees on one table.
 */
public final class WireTables {

    private WireTables() {
    }

    /** Small limits, so that the tables can reach them. */
    public static final WireLimits LIMITS = new WireLimits(100, 256, 16);

    /** (label, bytes, the instructions they hold). */
    public static Stream<Arguments> validStreams() {
        return Stream.concat(Stream.of(
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
                        Instruction.of("blob", "1", "iVBORw0KGgoAAAANSUhEUgAA"), Instruction.of("end", "1"))),
                asciiRunsAroundACharacter());
    }

    /**
     * A multi-byte character at every offset of a run of ASCII, so that it falls at every place of the scanner's
     * 64-byte blocks and of the eight-byte words after them, and a run ending exactly where the element does.
     */
    private static Stream<Arguments> asciiRunsAroundACharacter() {
        int run = 73;
        return IntStream.rangeClosed(0, run).mapToObj(k -> {
            String value = "a".repeat(k) + "é" + "b".repeat(run - k);
            return valid("4.name," + (run + 1) + "." + value + ",16." + "c".repeat(16) + ";",
                    Instruction.of("name", value, "c".repeat(16)));
        });
    }

    /** (label, bytes, what the error message says). */
    public static Stream<Arguments> invalidStreams() {
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
                invalid("4.name,3.abcdefghijklmnop;", "expected ',' or ';' after element 1, found 'd'"),
                invalidBytes(bytes("4.name,20.abcdefghi"), new byte[] {(byte) 0x80}, bytes("abcdefghij;")),
                invalidBytes(bytes("4.name,20.abcdefghi"), new byte[] {(byte) 0xC3, (byte) 0x41}, bytes("bcdefghi;")),
                invalidBytes(bytes("4.name,1."), new byte[] {(byte) 0xC0, (byte) 0x80}, bytes(";")),
                invalidBytes(bytes("4.name,1."), new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, bytes(";")),
                invalidBytes(bytes("4.name,1."), new byte[] {(byte) 0xF5, (byte) 0x80, (byte) 0x80}, bytes(";")),
                invalidBytes(bytes("4.name,1."), new byte[] {(byte) 0x80}, bytes(";")),
                invalidBytes(bytes("4.name,2."), new byte[] {(byte) 0xE4, (byte) 0x41, (byte) 0x41}, bytes(";")));
    }


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

    public static byte[] bytes(String text) {
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
    public static List<List<byte[]>> everySplit(byte[] wire) {
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

    public static String describe(List<byte[]> chunks) {
        StringBuilder out = new StringBuilder();
        for (byte[] chunk : chunks) {
            out.append('[').append(new String(chunk, StandardCharsets.UTF_8)).append(']');
        }
        return out.toString();
    }
}
