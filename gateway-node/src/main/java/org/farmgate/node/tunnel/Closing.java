package org.farmgate.node.tunnel;

import io.vertx.core.http.WebSocketBase;
import io.vertx.core.net.NetSocket;
import java.util.List;
import org.farmgate.node.guacd.ChunkReads;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.Instruction;

/**
 * How a tunnel's end reaches a client, and how a relaying node reads it back: one place for each. The client is told
 * the way Apache Guacamole's own tunnel does it, an {@code error} instruction (its message and status), then a close
 * whose reason is the status alone, which is where guacamole-common-js looks for it.
 */
final class Closing {

    private static final String DISCONNECT = Instruction.of("disconnect").encode();

    private Closing() {
    }

    /** Tells the client why, then closes; nothing when it is closed already. */
    static void withError(WebSocketBase ws, int status, String message) {
        if (ws.isClosed()) {
            return;
        }
        ws.writeTextMessage(Instruction.of("error", message, String.valueOf(status)).encode());
        withStatus(ws, status);
    }

    /** Closes with the status as the reason, and no instruction (the client was told already, or needs not be). */
    static void withStatus(WebSocketBase ws, int status) {
        if (!ws.isClosed()) {
            ws.close(GuacamoleStatus.webSocketCloseCodeOf(status), String.valueOf(status));
        }
    }

    /**
     * Clears what a tunnel or a relay set on {@code ws}, so that nothing it set moves data, pauses or resumes any
     * more. Vert.x refuses a drain or close handler on a closed WebSocket, and calls neither on one.
     */
    static void clearHandlers(WebSocketBase ws) {
        ws.handler(null);
        if (!ws.isClosed()) {
            ws.drainHandler(null);
            ws.closeHandler(null);
        }
    }

    /** As for a WebSocket, for guacd's connection: an ended tunnel or anchor hears nothing more from it. */
    static void clearHandlers(NetSocket guacd) {
        ChunkReads.handler(guacd, null);
        guacd.drainHandler(null);
        guacd.closeHandler(null);
        guacd.exceptionHandler(null);
    }

    /**
     * Leaves guacd as a client does, with {@code disconnect}, then closes. A bare close is not enough: guacd's main
     * process keeps the client's socket and its connection process waits out its 15 s user timeout, keeping the
     * session's memory that long (bench/RESULTS.md, issue 28). The node forwards only whole instructions to guacd,
     * so this one starts at an instruction's boundary.
     */
    static void leave(NetSocket guacd) {
        guacd.write(DISCONNECT);
        guacd.close();
    }

    /** Whether a close reason is a tunnel's status (1 to 5 digits); anything else means the peer went away. */
    static boolean isStatus(String reason) {
        return reason != null && !reason.isEmpty() && reason.length() <= 5
                && reason.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** The status of guacd's {@code error} instruction (message, status); an upstream error when it has none. */
    static int statusOf(Instruction guacdError) {
        List<String> args = guacdError.args();
        if (args.size() > 1) {
            try {
                return Integer.parseInt(args.get(1));
            } catch (NumberFormatException ignored) {
                // guacd's status was not a number: report a generic upstream error
            }
        }
        return GuacamoleStatus.UPSTREAM_ERROR.code();
    }

    /** The message of guacd's {@code error} instruction. */
    static String messageOf(Instruction guacdError) {
        return guacdError.args().isEmpty() ? "" : guacdError.arg(0);
    }
}
