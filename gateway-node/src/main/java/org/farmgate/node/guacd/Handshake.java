package org.farmgate.node.guacd;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.time.Duration;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * One guacd handshake on a fresh socket: the {@link HandshakeProtocol} fed from the socket, each wait with its own
 * timer. Runs on the socket's event loop. On {@code ready} the socket is handed over paused, with whatever followed
 * {@code ready} in the same read.
 */
final class Handshake {

    private final Vertx vertx;
    private final NetSocket socket;
    private final HandshakeRequest request;
    private final HandshakeProtocol protocol;
    private final long stepTimeoutMs;
    private final Promise<GuacdConnection> result = Promise.promise();
    private long timer = -1;

    Handshake(Vertx vertx, NetSocket socket, HandshakeRequest request, Duration stepTimeout) {
        this.vertx = vertx;
        this.socket = socket;
        this.request = request;
        this.protocol = new HandshakeProtocol(request);
        this.stepTimeoutMs = stepTimeout.toMillis();
    }

    Future<GuacdConnection> run() {
        ChunkReads.handler(socket, this::onData);
        socket.exceptionHandler(error -> fail(GuacamoleStatus.UPSTREAM_ERROR.code(),
                "guacd connection failed while " + protocol.state().description + ": " + error.getMessage()));
        socket.closeHandler(ignored -> fail(GuacamoleStatus.UPSTREAM_ERROR.code(),
                "guacd closed the connection while " + protocol.state().description));
        socket.write(protocol.select());
        armTimer("guacd sent no 'args' after 'select," + request.selected() + "' (guacd stays silent when "
                + "that protocol is not installed)");
        return result.future();
    }

    private void onData(ByteBuf chunk) {
        if (result.future().isComplete()) {
            return;
        }
        byte[] bytes = ByteBufUtil.getBytes(chunk);
        HandshakeProtocol.State state = protocol.feed(bytes, 0, bytes.length, wire -> {
            socket.write(wire);
            armTimer("guacd sent no 'ready' after 'connect'");
        });
        switch (state) {
            case READY -> {
                cancelTimer();
                // Whatever follows 'ready' in this read belongs to the session: hand it over byte for byte.
                Buffer rest = Buffer.buffer(bytes).getBuffer(protocol.restOffset(), bytes.length);
                socket.pause();
                ChunkReads.handler(socket, null);
                socket.exceptionHandler(null);
                socket.closeHandler(null);
                result.complete(new GuacdConnection(socket, protocol.connectionId(), protocol.version(), rest));
            }
            case FAILED -> fail(protocol.failureStatus(), protocol.failure());
            default -> {
                // waiting for more of guacd's answer
            }
        }
    }

    private void armTimer(String onTimeout) {
        cancelTimer();
        timer = vertx.setTimer(stepTimeoutMs, id -> fail(GuacamoleStatus.UPSTREAM_TIMEOUT.code(),
                onTimeout + " within " + stepTimeoutMs + " ms"));
    }

    private void cancelTimer() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
    }

    private void fail(int status, String message) {
        if (result.future().isComplete()) {
            return;
        }
        protocol.fail(status, message);
        cancelTimer();
        result.fail(new GuacdException(protocol.failureStatus(), protocol.failure()));
        ChunkReads.handler(socket, null);
        socket.closeHandler(null);
        socket.exceptionHandler(null);
        socket.close();
    }
}
