package org.farmgate.node.cluster;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import java.nio.charset.StandardCharsets;

/**
 * Whether guacd really answers: connect, {@code select,ssh}, and wait for the start of {@code args}. A listening
 * socket alone is not enough (guacd without its protocol libraries accepts and then says nothing).
 */
public final class GuacdProbe {

    private final Vertx vertx;
    private final NetClient client;
    private final String host;
    private final int port;
    private final long timeoutMs;

    public GuacdProbe(Vertx vertx, String host, int port, long timeoutMs) {
        this.vertx = vertx;
        this.client = vertx.createNetClient(new NetClientOptions().setConnectTimeout((int) timeoutMs));
        this.host = host;
        this.port = port;
        this.timeoutMs = timeoutMs;
    }

    public Future<Boolean> probe() {
        Promise<Boolean> result = Promise.promise();
        client.connect(port, host).onFailure(error -> result.tryComplete(false)).onSuccess(socket -> {
            long timer = vertx.setTimer(timeoutMs, id -> {
                result.tryComplete(false);
                socket.close();
            });
            StringBuilder seen = new StringBuilder();
            socket.handler(chunk -> {
                seen.append(chunk.toString(StandardCharsets.UTF_8));
                if (seen.length() >= 7) {
                    vertx.cancelTimer(timer);
                    result.tryComplete(seen.toString().startsWith("4.args,"));
                    socket.close();
                }
            });
            socket.closeHandler(ignored -> {
                vertx.cancelTimer(timer);
                result.tryComplete(false);
            });
            socket.write("6.select,3.ssh;");
        });
        return result.future();
    }

    public Future<Void> close() {
        return client.close();
    }
}
