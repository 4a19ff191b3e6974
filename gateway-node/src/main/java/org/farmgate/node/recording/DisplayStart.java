package org.farmgate.node.recording;

import java.nio.charset.StandardCharsets;
import org.farmgate.protocol.InstructionScanner;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * Where a recording starts: with the display's first state, as guacd's own {@code recording-path} does. guacd opens a
 * joining user's stream with that user's pointer (its image, from a buffer nothing has drawn yet, and its place) and a
 * sync, before the connection's display has any size (RDP does); guacd's own recording has none of it, and
 * {@code guacenc} 1.6.0 crashes on a sync that finds the pointer placed over a default layer without a size. So until
 * the first {@code size}, the stream's {@code cursor}, {@code mouse} and {@code sync} are left out (and the client's
 * input, which {@link SessionRecording} asks about); nothing else, and nothing from the first {@code size} on. An SSH
 * stream starts with a {@code size} (its terminal's layers) and loses nothing. Fed whole instructions, by one thread.
 */
final class DisplayStart {

    /** Where the kept bytes go. */
    interface Keep {
        void range(byte[] bytes, int start, int end);
    }

    private static final byte[] SIZE = ascii("size");
    private static final byte[] CURSOR = ascii("cursor");
    private static final byte[] MOUSE = ascii("mouse");
    private static final byte[] SYNC = ascii("sync");

    private final InstructionScanner scanner = new InstructionScanner(WireLimits.FROM_GUACD);
    private volatile boolean started; // read by a joined connection's input, on its own event loop

    boolean started() {
        return started;
    }

    void display(byte[] bytes, int start, int end, Keep keep) {
        int from = start;
        try {
            for (int at = start; !started && at < end; ) {
                int next = scanner.scan(bytes, at, end);
                if (next < 0) {
                    break; // not whole instructions after all: kept as they are
                }
                if (scanner.completedOpcodeIs(SIZE)) {
                    started = true;
                } else if (scanner.completedOpcodeIs(CURSOR) || scanner.completedOpcodeIs(MOUSE)
                        || scanner.completedOpcodeIs(SYNC)) {
                    if (at > from) {
                        keep.range(bytes, from, at);
                    }
                    from = next;
                }
                at = next;
            }
        } catch (WireFormatException e) {
            started = true; // the relay checked this stream; should it not parse here, it is kept whole
        }
        if (from < end) {
            keep.range(bytes, from, end);
        }
    }

    private static byte[] ascii(String opcode) {
        return opcode.getBytes(StandardCharsets.US_ASCII);
    }
}
