package org.farmgate.node.session;

/**
 * How a tunnel ended.
 *
 * @param status the Guacamole status the client was given (0 for a normal end)
 * @param message what happened, for the session's end reason and the log line
 */
public record TunnelEnd(Cause cause, int status, String message, long bytesToClient, long bytesToGuacd,
        long instructionsToClient, long instructionsToGuacd) {

    /** Who or what ended the tunnel. */
    public enum Cause {
        /** The client went without a word: closed the WebSocket, or lost it. Its session may wait for it. */
        CLIENT_LEFT,
        /** The client sent {@code disconnect}: it ended the session. */
        CLIENT_DISCONNECTED,
        /** guacd closed the connection without an error. */
        GUACD_CLOSED,
        /** guacd sent an {@code error}, or its connection failed. */
        GUACD_ERROR,
        /** The client sent bytes that are not Guacamole instructions. */
        CLIENT_ERROR,
        /** The gateway ended it: the session was deleted, ran too long, or the node is shutting down. */
        TERMINATED
    }

    public boolean isError() {
        return cause == Cause.GUACD_ERROR || cause == Cause.CLIENT_ERROR;
    }
}
