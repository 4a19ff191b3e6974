package org.farmgate.testkit.fault;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.io.ByteArrayOutputStream;

/**
 * A TCP proxy that keeps a copy of every byte it forwards, both ways: what an attacker on the path between two
 * nodes would see. Bounded (the first {@code limit} bytes are kept); a full write queue pauses the other side.
 */
public final class TappingProxy {

    private final NetServer server;
    private final ByteArrayOutputStream seen = new ByteArrayOutputStream();
    private final int limit;

    private TappingProxy(NetServer server, int limit) {
        this.server = server;
        this.limit = limit;
    }

    public static Future<TappingProxy> start(Vertx vertx, String host, String targetHost, int targetPort,
            int limit) {
        TappingProxy[] self = new TappingProxy[1];
        NetServer server = vertx.createNetServer().connectHandler(inbound -> {
            inbound.pause();
            vertx.createNetClient().connect(targetPort, targetHost).onFailure(error -> inbound.close())
                    .onSuccess(outbound -> self[0].join(inbound, outbound));
        });
        self[0] = new TappingProxy(server, limit);
        return server.listen(0, host).map(self[0]);
    }

    private void join(NetSocket inbound, NetSocket outbound) {
        inbound.handler(data -> forward(data, outbound, inbound));
        outbound.handler(data -> forward(data, inbound, outbound));
        inbound.closeHandler(v -> outbound.close());
        outbound.closeHandler(v -> inbound.close());
        inbound.resume();
    }

    private void forward(Buffer data, NetSocket to, NetSocket from) {
        synchronized (seen) {
            if (seen.size() < limit) {
                seen.writeBytes(data.getBytes());
            }
        }
        to.write(data);
        if (to.writeQueueFull()) {
            from.pause();
            to.drainHandler(v -> from.resume());
        }
    }

    public int port() {
        return server.actualPort();
    }

    /** Everything seen so far, both directions interleaved. */
    public byte[] seen() {
        synchronized (seen) {
            return seen.toByteArray();
        }
    }
}
