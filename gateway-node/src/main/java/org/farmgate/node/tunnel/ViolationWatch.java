package org.farmgate.node.tunnel;

import io.netty.handler.codec.CorruptedFrameException;
import io.vertx.core.http.ServerWebSocket;

/**
 * Remembers a WebSocket protocol violation (a broken frame: Vert.x then closes the socket with 1002) seen before
 * the tunnel watches the socket itself: while the ticket is checked or guacd answers the handshake. Without it the
 * session of a client that broke the protocol ended "completed", as if the client had left politely.
 */
final class ViolationWatch {

    private CorruptedFrameException seen;

    static ViolationWatch on(ServerWebSocket ws) {
        ViolationWatch watch = new ViolationWatch();
        if (!ws.isClosed()) {
            ws.exceptionHandler(error -> {
                if (error instanceof CorruptedFrameException violation) {
                    watch.seen = violation;
                }
            });
        }
        return watch;
    }

    /** The violation, or null when the client broke no rule. */
    CorruptedFrameException seen() {
        return seen;
    }
}
