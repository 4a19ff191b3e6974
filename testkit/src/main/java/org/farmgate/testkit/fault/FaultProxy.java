package org.farmgate.testkit.fault;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TCP proxy that puts {@link Faults} on the link it carries: between a client and the gateway, or between the
 * gateway and guacd. A refusing proxy resets every connection it accepts (linger 0); a target that cannot be reached
 * closes the client's connection the same way a dead host would.
 */
public final class FaultProxy {

    /** What happened, for a run's summary. */
    public static final class Counters {
        final LongAdder accepted = new LongAdder();
        final LongAdder open = new LongAdder();
        final LongAdder cut = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder bytes = new LongAdder();

        public long accepted() {
            return accepted.sum();
        }

        public long open() {
            return open.sum();
        }

        public long cut() {
            return cut.sum();
        }

        public long refused() {
            return refused.sum();
        }

        public long bytes() {
            return bytes.sum();
        }
    }

    private final NetServer server;
    private final NetClient client;
    private final Counters counters;
    private final Link link;

    private FaultProxy(NetServer server, NetClient client, Counters counters, Link link) {
        this.server = server;
        this.client = client;
        this.counters = counters;
        this.link = link;
    }

    /** The connections carried now, and whether the link is down (as a stopped server: nothing gets through). */
    private static final class Link {
        final Set<FaultyConnection> open = ConcurrentHashMap.newKeySet();
        volatile boolean down;
    }

    public static Future<FaultProxy> start(Vertx vertx, String host, int port, String targetHost, int targetPort,
            Faults faults) {
        Counters counters = new Counters();
        Link link = new Link();
        NetClient client = vertx.createNetClient(new NetClientOptions().setConnectTimeout(5000).setTcpNoDelay(true));
        NetServerOptions options = new NetServerOptions().setHost(host).setPort(port).setTcpNoDelay(true);
        if (faults.refuse()) {
            options.setSoLinger(0);
        }
        NetServer server = vertx.createNetServer(options).connectHandler(socket -> {
            counters.accepted.increment();
            if (faults.refuse() || link.down) {
                counters.refused.increment();
                socket.close();
                return;
            }
            socket.pause();
            counters.open.increment();
            client.connect(targetPort, targetHost).onComplete(connected -> {
                if (connected.failed()) {
                    counters.open.decrement();
                    socket.close();
                    return;
                }
                NetSocket target = connected.result();
                target.pause();
                FaultyConnection connection = new FaultyConnection(vertx, socket, target, faults, counters);
                link.open.add(connection);
                connection.start(() -> link.open.remove(connection));
            });
        });
        return server.listen().map(s -> new FaultProxy(s, client, counters, link));
    }

    /**
     * Takes the link down as a stopped server would: every connection it carries is cut, and new ones are refused
     * until {@link #up}. Call it on the proxy's Vert.x context.
     */
    public void down() {
        link.down = true;
        List.copyOf(link.open).forEach(FaultyConnection::cut);
    }

    public void up() {
        link.down = false;
    }

    public int port() {
        return server.actualPort();
    }

    public Counters counters() {
        return counters;
    }

    public Future<Void> close() {
        return server.close().compose(v -> client.close());
    }
}
