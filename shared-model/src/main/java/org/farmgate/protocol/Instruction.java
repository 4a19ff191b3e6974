package org.farmgate.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One Guacamole instruction, decoded: an opcode and its arguments.
 *
 * <p>On the wire each element is {@code LENGTH.VALUE} where LENGTH counts Unicode code points, elements are
 * separated by {@code ,} and the instruction ends with {@code ;}. An empty opcode marks the tunnel's internal
 * instructions ({@code 0.,4.ping,...;}).
 */
public record Instruction(String opcode, List<String> args) {

    public Instruction {
        Objects.requireNonNull(opcode, "opcode");
        args = List.copyOf(args);
    }

    public static Instruction of(String opcode, String... args) {
        return new Instruction(opcode, List.of(args));
    }

    public String arg(int index) {
        return args.get(index);
    }

    /** Whether this is one of the tunnel's own instructions (empty opcode), never meant for guacd. */
    public boolean isInternal() {
        return opcode.isEmpty();
    }

    /** The wire form. */
    public String encode() {
        StringBuilder out = new StringBuilder(16 + opcode.length() + 8 * args.size());
        appendElement(out, opcode);
        for (String arg : args) {
            out.append(',');
            appendElement(out, arg);
        }
        return out.append(';').toString();
    }

    public byte[] toBytes() {
        return encode().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return encode();
    }

    private static void appendElement(StringBuilder out, String value) {
        out.append(value.codePointCount(0, value.length())).append('.').append(value);
    }

    /**
     * Decodes one complete instruction that an {@link InstructionScanner} has already validated: the lengths are known
     * to be right and the bytes valid UTF-8, so this only splits.
     */
    public static Instruction decodeValidated(byte[] bytes, int from, int to) {
        List<String> elements = new ArrayList<>();
        int i = from;
        while (i < to) {
            int length = 0;
            while (bytes[i] != '.') {
                length = length * 10 + (bytes[i++] - '0');
            }
            int start = ++i;
            for (int codePoints = 0; codePoints < length; codePoints++) {
                i += utf8Width(bytes[i]);
            }
            elements.add(new String(bytes, start, i - start, StandardCharsets.UTF_8));
            i++; // the ',' or ';'
        }
        return new Instruction(elements.get(0), elements.subList(1, elements.size()));
    }

    private static int utf8Width(byte lead) {
        int u = lead & 0xFF;
        return u < 0x80 ? 1 : u < 0xE0 ? 2 : u < 0xF0 ? 3 : 4;
    }
}
