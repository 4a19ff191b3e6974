package org.farmgate.node.cluster;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Whether guacd really answers: connect, {@code select,ssh}, and wait for the start of {@code args}. A listening
 * socket alone is not enough (guacd without its protocol libraries accepts and then says nothing).
 *
 * <p>guacd forks a process at every {@code select}. Measured on guacd 1.6.0: that process waits 15 s for the rest of
 * the handshake and then exits, whether the client is still there or not, while guacd's main process keeps the client's
 * socket open and silent until the client closes it or sends anything. Probing every 5 s with a fresh connection
 * kept three such processes alive (about 5 MB of PSS each, counted in guacd's measured memory) and forked twelve a
 * minute. So the probe holds its connection: while it stays open guacd's main process is alive (when guacd stops, the
 * socket closes and the next probe connects afresh, and fails), and every {@link #REFRESH} a fresh {@code select}
 * proves that guacd still answers. One fork a minute, one process alive for 15 s of every 60.
 */
public final class GuacdProbe {

    static final Duration REFRESH = Duration.ofSeconds(60);

    private final Vertx vertx;
    private final NetClient client;
    private final String host;
    private final int port;
    private final long timeoutMs;
    private final long refreshNanos;
    private NetSocket held;
    private long heldSince;

    public GuacdProbe(Vertx vertx, String host, int port, long timeoutMs) {
        this(vertx, host, port, timeoutMs, REFRESH);
    }

    GuacdProbe(Vertx vertx, String host, int port, long timeoutMs, Duration refresh) {
        this.refreshNanos = refresh.toNanos();
        this.vertx = vertx;
        this.client = vertx.createNetClient(new NetClientOptions().setConnectTimeout((int) timeoutMs));
        this.host = host;
        this.port = port;
        this.timeoutMs = timeoutMs;
    }

    public Future<Boolean> probe() {
        synchronized (this) {
            if (held != null && System.nanoTime() - heldSince < refreshNanos) {
                return Future.succeededFuture(true);
            }
        }
        return answeringConnection().map(socket -> {
            hold(socket);
            return true;
        }).otherwise(false);
    }

    /** A connection on which guacd answered {@code select} with {@code args}, left open. */
    private Future<NetSocket> answeringConnection() {
        Promise<NetSocket> result = Promise.promise();
        client.connect(port, host).onFailure(result::tryFail).onSuccess(socket -> {
            long timer = vertx.setTimer(timeoutMs, id -> {
                result.tryFail("guacd did not answer select within " + timeoutMs + " ms");
                socket.close();
            });
            StringBuilder seen = new StringBuilder();
            socket.handler(chunk -> {
                if (result.future().isComplete() || seen.length() >= 7) {
                    return; // the rest of args; guacd then waits for the handshake and sends nothing more
                }
                seen.append(chunk.toString(StandardCharsets.UTF_8));
                if (seen.length() >= 7) {
                    vertx.cancelTimer(timer);
                    if (seen.toString().startsWith("4.args,")) {
                        result.tryComplete(socket);
                    } else {
                        result.tryFail("guacd answered select with " + seen);
                        socket.close();
                    }
                }
            });
            socket.closeHandler(ignored -> {
                vertx.cancelTimer(timer);
                result.tryFail("guacd closed the connection");
                released(socket);
            });
            socket.write("6.select,3.ssh;");
        });
        return result.future();
    }

    private void hold(NetSocket socket) {
        NetSocket previous;
        synchronized (this) {
            previous = held;
            held = socket;
            heldSince = System.nanoTime();
        }
        if (previous != null && previous != socket) {
            previous.close();
        }
    }

    /** guacd closed a held connection (or we did): the next probe connects afresh. */
    private synchronized void released(NetSocket socket) {
        if (held == socket) {
            held = null;
        }
    }

    public Future<Void> close() {
        NetSocket last;
        synchronized (this) {
            last = held;
            held = null;
        }
        Future<Void> closed = last == null ? Future.succeededFuture() : last.close().otherwise((Void) null);
        return closed.compose(v -> client.close());
    }
}
