package org.farmgate.node.http;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.node.config.ConnectionSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds what a connection costs before it has sent a whole request: Vert.x's idle timeout is reset by every byte,
 * so a client trickling one header byte at a time (slowloris) or a body that never ends would hold its connection
 * for ever. Each connection gets a deadline, armed when it opens, again when a request's headers arrive (for its
 * body) and after each response (for the next request); a connection that misses it is closed. A WebSocket leaves
 * the guard at its upgrade request: from then on the idle timeout and the tunnel's own limits apply.
 *
 * <p>Also caps the connections open at once from one remote address. One guard serves every event loop of a
 * listener; a connection's state is only touched on its own loop.
 */
public final class ConnectionGuard {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);

    private final Vertx vertx;
    private final ConnectionSettings settings;
    private final ConcurrentMap<String, AtomicInteger> perAddress = new ConcurrentHashMap<>();
    private final ConcurrentMap<HttpConnection, Deadline> deadlines = new ConcurrentHashMap<>();

    public ConnectionGuard(Vertx vertx, ConnectionSettings settings) {
        this.vertx = vertx;
        this.settings = settings;
    }

    /** The listener's connection handler. */
    public void opened(HttpConnection connection) {
        String address = address(connection.remoteAddress());
        AtomicInteger open = perAddress.computeIfAbsent(address, a -> new AtomicInteger());
        int count = open.incrementAndGet();
        Deadline deadline = new Deadline(connection);
        deadlines.put(connection, deadline);
        connection.closeHandler(closed -> {
            deadlines.remove(connection);
            deadline.cancel();
            if (open.decrementAndGet() == 0) {
                perAddress.remove(address, open);
            }
        });
        if (count > settings.maxPerAddress()) {
            if (count == settings.maxPerAddress() + 1) { // once per crossing, not once per refused connection
                LOG.warn("refusing connections from {}: {} open, the most allowed (GW_MAX_CONNECTIONS_PER_ADDRESS)",
                        address, settings.maxPerAddress());
            }
            connection.close();
            return;
        }
        deadline.arm();
    }

    /** Wraps the listener's request handler. */
    public Handler<HttpServerRequest> requests(Handler<HttpServerRequest> next) {
        return request -> {
            Deadline deadline = deadlines.get(request.connection());
            if (deadline != null) {
                deadline.requestArrived(request);
            }
            next.handle(request);
        };
    }

    private static String address(SocketAddress remote) {
        return remote == null ? "unknown" : remote.hostAddress();
    }

    private final class Deadline {

        private final HttpConnection connection;
        private HttpServerRequest current;
        private long timer = -1;

        Deadline(HttpConnection connection) {
            this.connection = connection;
        }

        void arm() {
            cancel();
            timer = vertx.setTimer(settings.requestTimeout().toMillis(), id -> expired());
        }

        void cancel() {
            if (timer >= 0) {
                vertx.cancelTimer(timer);
                timer = -1;
            }
        }

        void requestArrived(HttpServerRequest request) {
            if (request.headers().contains(HttpHeaders.UPGRADE, HttpHeaders.WEBSOCKET, true)) {
                cancel();
                deadlines.remove(connection);
                return;
            }
            current = request;
            arm();
        }

        private void expired() {
            timer = -1;
            if (current != null && current.isEnded() && !current.response().ended()) {
                arm(); // the node is still answering: that is not the client's delay
                return;
            }
            if (current != null && current.isEnded()) {
                current = null; // answered; the next request has a full deadline
                arm();
                return;
            }
            LOG.debug("closing a connection from {}: no whole request within {} s (GW_REQUEST_TIMEOUT_SECS)",
                    address(connection.remoteAddress()), settings.requestTimeout().toSeconds());
            connection.close();
        }
    }
}
