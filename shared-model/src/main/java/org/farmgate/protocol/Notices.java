package org.farmgate.protocol;

/**
 * Codes of the gateway's own {@code msg} instructions to the browser. Guacamole's {@code msg} (protocol 1.5.0)
 * carries a numeric code and arguments to the client's {@code onmsg}; guacd uses 0x0001 and 0x0002 (a user joined,
 * left). The gateway's codes lie far from those.
 */
public final class Notices {

    /** The node serving the session is shutting down; the argument is the seconds left before it ends sessions. */
    public static final int NODE_SHUTTING_DOWN = 0x7001;

    private Notices() {
    }

    /** The instruction that tells a browser its node stops in {@code seconds}. */
    public static Instruction shuttingDown(long seconds) {
        return Instruction.of("msg", String.valueOf(NODE_SHUTTING_DOWN), String.valueOf(seconds));
    }
}
