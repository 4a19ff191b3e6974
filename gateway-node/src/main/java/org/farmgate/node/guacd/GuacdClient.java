package org.farmgate.node.guacd;

import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import java.time.Duration;
import org.farmgate.protocol.GuacamoleStatus;

/**
 * Opens connections to this node's guacd: TCP connect with a timeout, then the Guacamole handshake, every step of
 * it timed (guacd itself never times out a half-done handshake).
 */
public final class GuacdClient {

    private final Vertx vertx;
    private final NetClient netClient;
    private final String host;
    private final int port;
    private final Duration stepTimeout;

    public GuacdClient(Vertx vertx, String host, int port, Duration connectTimeout, Duration stepTimeout) {
        this.vertx = vertx;
        this.netClient = vertx.createNetClient(new NetClientOptions()
                .setConnectTimeout((int) connectTimeout.toMillis())
                .setTcpNoDelay(true));
        this.host = host;
        this.port = port;
        this.stepTimeout = stepTimeout;
    }

    /** Connects and runs the handshake; fails with a {@link GuacdException} that says what went wrong. */
    public Future<GuacdConnection> connect(HandshakeRequest request) {
        return netClient.connect(port, host)
                .recover(error -> Future.failedFuture(unreachable(error)))
                .compose(socket -> new Handshake(vertx, socket, request, stepTimeout).run());
    }

    public String address() {
        return host + ":" + port;
    }

    public Future<Void> close() {
        return netClient.close();
    }

    private GuacdException unreachable(Throwable error) {
        if (error instanceof ConnectTimeoutException) {
            return new GuacdException(GuacamoleStatus.UPSTREAM_TIMEOUT.code(),
                    "guacd at " + address() + " did not accept the connection in time");
        }
        return new GuacdException(GuacamoleStatus.UPSTREAM_UNAVAILABLE.code(),
                "guacd at " + address() + " is not reachable: " + error.getMessage());
    }
}
