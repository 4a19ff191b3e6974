package org.farmgate.node.recording;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.farmgate.protocol.Instruction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A recording starts with the display's first state: the streams as a real guacd 1.6.0 opened them (RDP: the join's
 * pointer and sync before any size; SSH: its terminal's layers first), fed whole and one instruction at a time.
 */
class DisplayStartTest {

    private static final Instruction AUDIO = Instruction.of("audio", "1", "audio/L16;rate=44100,channels=2");
    private static final Instruction CURSOR = Instruction.of("cursor", "0", "0", "-2", "0", "0", "64", "64");
    private static final Instruction POINTER = Instruction.of("mouse", "0", "0", "0", "24043719");
    private static final Instruction SYNC = Instruction.of("sync", "24043719", "0");
    private static final Instruction END = Instruction.of("end", "1");
    private static final Instruction BUFFER = Instruction.of("size", "-6", "32", "32");
    private static final Instruction DISPLAY = Instruction.of("size", "0", "1024", "768");
    private static final Instruction NAME = Instruction.of("name", "bench@vm: ~ — é");

    static Stream<Arguments> streams() {
        return Stream.of(
                Arguments.of("RDP: the join's pointer and sync are left out, the rest kept",
                        List.of(AUDIO, CURSOR, POINTER, SYNC, END, AUDIO, BUFFER, DISPLAY, CURSOR, POINTER, SYNC),
                        List.of(AUDIO, END, AUDIO, BUFFER, DISPLAY, CURSOR, POINTER, SYNC)),
                Arguments.of("SSH: a size first, nothing left out",
                        List.of(Instruction.of("size", "1", "0", "0"), NAME, DISPLAY, SYNC, POINTER, SYNC),
                        List.of(Instruction.of("size", "1", "0", "0"), NAME, DISPLAY, SYNC, POINTER, SYNC)),
                Arguments.of("nothing but the join yet", List.of(CURSOR, POINTER, SYNC), List.of()));
    }

    @ParameterizedTest(name = "{0}, whole")
    @MethodSource("streams")
    void wholeChunks(String name, List<Instruction> stream, List<Instruction> recorded) {
        StringBuilder kept = new StringBuilder();
        byte[] bytes = encode(stream);
        new DisplayStart().display(bytes, 0, bytes.length, (b, from, to) -> kept.append(text(b, from, to)));
        assertEquals(String.join("", recorded.stream().map(Instruction::encode).toList()), kept.toString());
    }

    @ParameterizedTest(name = "{0}, an instruction at a time")
    @MethodSource("streams")
    void oneInstructionAtATime(String name, List<Instruction> stream, List<Instruction> recorded) {
        StringBuilder kept = new StringBuilder();
        DisplayStart start = new DisplayStart();
        for (Instruction instruction : stream) {
            byte[] bytes = encode(List.of(instruction));
            start.display(bytes, 0, bytes.length, (b, from, to) -> kept.append(text(b, from, to)));
        }
        assertEquals(String.join("", recorded.stream().map(Instruction::encode).toList()), kept.toString());
    }

    private static byte[] encode(List<Instruction> stream) {
        return String.join("", stream.stream().map(Instruction::encode).toList()).getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes, int from, int to) {
        return new String(bytes, from, to - from, StandardCharsets.UTF_8);
    }
}
