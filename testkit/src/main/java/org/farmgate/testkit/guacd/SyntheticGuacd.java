package org.farmgate.testkit.guacd;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A stand-in for guacd 1.6.0 that speaks its protocol exactly as the captures in docs/GUACD.mdpts show, for tests (no
 * guacd package exists for these machines) and for load far beyond what real guacds on one host could take.
 * See {@link SyntheticConnection} for what each connection does.
 */
public final class SyntheticGuacd {

    private final NetServer server;
    private final List<SyntheticConnection> connections = new CopyOnWriteArrayList<>();
    /** Connections that may be joined, by id: open, with a handshake done, of their own (not joins). */
    private final Map<String, SyntheticConnection> joinable = new ConcurrentHashMap<>();
    private final SyntheticConnection.Joinable joins = new SyntheticConnection.Joinable() {
        @Override
        public SyntheticConnection find(String id) {
            SyntheticConnection owner = joinable.get(id);
            return owner != null && owner.isOpen() && owner.connectVersion() != null && owner.joined() == null
                    ? owner : null;
        }

        @Override
        public void closed(SyntheticConnection connection) {
            joinable.remove(connection.connectionId(), connection);
        }
    };
    private final boolean recordConnections;
    private final RoundTripRecorder syncRoundTrips = new RoundTripRecorder(100_000);

    private SyntheticGuacd(NetServer server, boolean recordConnections) {
        this.server = server;
        this.recordConnections = recordConnections;
    }

    /**
     * Listens on {@code host:port} (port 0: any free port).
     *
     * @param recordConnections keep every connection for inspection (tests); off for long load runs
     */
    public static Future<SyntheticGuacd> start(Vertx vertx, String host, int port, SyntheticGuacdOptions options,
            boolean recordConnections) {
        NetServer server = vertx.createNetServer(new NetServerOptions().setHost(host).setPort(port)
                .setTcpNoDelay(true));
        SyntheticGuacd guacd = new SyntheticGuacd(server, recordConnections);
        server.connectHandler(socket -> {
            SyntheticConnection connection = new SyntheticConnection(vertx, socket, options, guacd.syncRoundTrips,
                    guacd.joins);
            guacd.joinable.put(connection.connectionId(), connection);
            if (guacd.recordConnections) {
                guacd.connections.add(connection);
            }
            connection.start();
        });
        return server.listen().map(guacd);
    }

    public static Future<SyntheticGuacd> start(Vertx vertx, SyntheticGuacdOptions options) {
        return start(vertx, "127.0.0.1", 0, options, true);
    }

    public int port() {
        return server.actualPort();
    }

    /** Every connection so far, oldest first (when recording). */
    public List<SyntheticConnection> connections() {
        return List.copyOf(connections);
    }

    /** Connections that went as far as {@code connect}: sessions, not health probes. */
    public List<SyntheticConnection> sessions() {
        return connections.stream().filter(connection -> connection.connectVersion() != null).toList();
    }

    /** The newest connection that went as far as {@code connect}. */
    public SyntheticConnection lastSession() {
        List<SyntheticConnection> sessions = sessions();
        return sessions.isEmpty() ? null : sessions.get(sessions.size() - 1);
    }

    /** Time from sending each frame's {@code sync} to the client's answer, as guacd itself tracks its clients. */
    public RoundTripRecorder syncRoundTrips() {
        return syncRoundTrips;
    }

    public long openConnections() {
        return connections.stream().filter(SyntheticConnection::isOpen).count();
    }

    /** Open connections that stopped after {@code args}: a gateway's health probe holds one. */
    public long waitingAfterArgs() {
        return connections.stream().filter(SyntheticConnection::isWaitingAfterArgs).count();
    }

    public Future<Void> close() {
        return server.close();
    }
}
