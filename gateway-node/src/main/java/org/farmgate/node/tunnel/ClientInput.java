package org.farmgate.node.tunnel;

import java.nio.charset.StandardCharsets;
import org.farmgate.protocol.InstructionScanner;

/**
 * Which of a client's instructions the tunnel hands to guacd. A read-only watcher is a guacd user joined with
 * {@code read-only}, which guacd's protocol handlers honour; the node drops their input as well, so that a guacd that
 * mishandles the flag (or a join that lost it) still never sees a keystroke. What passes is what keeps a display
 * flowing to them: frame acknowledgements, stream acknowledgements, keep-alives, and their own goodbye.
 */
enum ClientInput {

    /** Everything passes: the owner, or a collaborative watcher. */
    FULL,

    /** Only {@code sync}, {@code ack}, {@code nop} and {@code disconnect} pass. */
    READ_ONLY;

    private static final byte[] SYNC = "sync".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ACK = "ack".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] NOP = "nop".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] DISCONNECT = "disconnect".getBytes(StandardCharsets.US_ASCII);

    /** Whether the instruction the scanner just completed (not an internal one) may reach guacd. */
    boolean passes(InstructionScanner scanner) {
        return this == FULL || scanner.completedOpcodeIs(SYNC) || scanner.completedOpcodeIs(ACK)
                || scanner.completedOpcodeIs(NOP) || scanner.completedOpcodeIs(DISCONNECT);
    }
}
