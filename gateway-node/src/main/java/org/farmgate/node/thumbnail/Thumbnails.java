package org.farmgate.node.thumbnail;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.netty.buffer.ByteBufUtil;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.error.GatewayException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.UnavailableException;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.guacd.ChunkReads;
import org.farmgate.node.guacd.GuacdClient;
import org.farmgate.node.guacd.GuacdConnection;
import org.farmgate.node.guacd.HandshakeRequest;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.node.session.LocalSession;
import org.farmgate.node.session.SessionHost;
import org.farmgate.protocol.GuacamoleParser;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.protocol.WireFormatException;
import org.farmgate.protocol.WireLimits;

/**
 * Small live pictures of running sessions, for the sessions page.
 *
 * <p>Made by the node that holds the session, from guacd's own display: a read-only join of the session's guacd
 * connection, which guacd answers with the whole screen as PNG and a {@code sync} ({@code guac_display_dup}); the
 * join is then closed. Nothing is uploaded by a browser, and nothing taps the relay: a thumbnail cannot slow a
 * session's stream or hold its back-pressure.
 *
 * <p>Cost is bounded three ways, so that a page left open on 50 sessions costs a known amount: a picture is made
 * only when someone asks, at most once per session per {@code interval} (later asks get the same picture); asks
 * for one session while its picture is being made share that one join; and at most {@link #MAX_AT_ONCE} joins run
 * on a node at once — beyond that the last picture is served, or a 503 asks the page to try again. A session's
 * picture is forgotten when it stops. Who may see a picture is the sessions API's rule, checked before asking.
 */
public final class Thumbnails {

    static final int MAX_AT_ONCE = 2;
    static final int WIDTH = 320;
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);
    private static final String ACTION = "thumbnail";
    private static final java.util.List<String> IMAGES = java.util.List.of("image/png", "image/jpeg");

    /** A picture and when it was made. */
    public record Picture(@JsonProperty("jpeg") byte[] jpeg, @JsonProperty("made_at") Instant madeAt) {
    }

    record Ask(@JsonProperty("session_id") String sessionId) {
    }

    private final Vertx vertx;
    private final String nodeId;
    private final SessionHost host;
    private final GuacdClient guacd;
    private final NodeMessenger messenger;
    private final Duration interval;
    private final Clock clock;
    private final Map<String, Picture> made = new ConcurrentHashMap<>();
    private final Map<String, Future<Picture>> making = new ConcurrentHashMap<>();
    private final AtomicInteger running = new AtomicInteger();

    public Thumbnails(Vertx vertx, String nodeId, SessionHost host, GuacdClient guacd, NodeMessenger messenger,
            Duration interval, Clock clock) {
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.host = host;
        this.guacd = guacd;
        this.messenger = messenger;
        this.interval = interval;
        this.clock = clock;
    }

    /** Answers the other nodes' asks for pictures of sessions held here. */
    public void serve() {
        messenger.serve(nodeId, ACTION, Ask.class, ask -> local(ask.sessionId()));
    }

    /** A picture of {@code session}, which the caller may see: made here, or by the node that holds it. */
    public Future<Picture> of(SessionInfo session) {
        if (!session.status().isLive()) {
            return Future.failedFuture(new NotFoundException("session " + session.sessionId() + " has ended"));
        }
        return session.nodeId().equals(nodeId) ? local(session.sessionId())
                : messenger.request(session.nodeId(), ACTION, new Ask(session.sessionId()), Picture.class);
    }

    /** Forgets a stopped session's picture. */
    public void forget(String sessionId) {
        made.remove(sessionId);
    }

    private Future<Picture> local(String sessionId) {
        Picture last = made.get(sessionId);
        if (last != null && last.madeAt().plus(interval).isAfter(clock.instant())) {
            return Future.succeededFuture(last);
        }
        Future<Picture> pending = making.get(sessionId);
        if (pending != null) {
            return pending;
        }
        LocalSession session = host.local(sessionId);
        HandshakeRequest join = session == null ? null : session.pictureRequest(IMAGES);
        if (join == null) {
            return Future.failedFuture(new NotFoundException("session " + sessionId
                    + " shows nothing yet: nobody has opened it"));
        }
        if (running.incrementAndGet() > MAX_AT_ONCE) {
            running.decrementAndGet();
            return last != null ? Future.succeededFuture(last) : Future.failedFuture(new GatewayException(
                    GuacamoleStatus.SERVER_BUSY, "this node is making other pictures; ask again in a moment",
                    Map.of(), Map.of("Retry-After", "1")));
        }
        Promise<Picture> promise = Promise.promise();
        making.put(sessionId, promise.future());
        guacd.connect(join).compose(this::capture)
                .compose(painter -> vertx.executeBlocking(() -> painter.paint(WIDTH), false))
                .map(jpeg -> new Picture(jpeg, clock.instant()))
                .onComplete(done -> {
                    running.decrementAndGet();
                    making.remove(sessionId);
                    if (done.succeeded() && host.local(sessionId) != null) {
                        made.put(sessionId, done.result());
                    }
                }).onComplete(promise);
        return promise.future().recover(error -> Future.failedFuture(error instanceof GatewayException known
                ? known : new UnavailableException("no picture of session " + sessionId + ": "
                        + error.getMessage())));
    }

    /** Reads the joined connection up to its first sync, then closes it. */
    private Future<DisplayPainter> capture(GuacdConnection connection) {
        NetSocket socket = connection.socket();
        DisplayPainter painter = new DisplayPainter();
        GuacamoleParser parser = new GuacamoleParser(WireLimits.FROM_GUACD);
        Promise<DisplayPainter> done = Promise.promise();
        long timer = vertx.setTimer(JOIN_TIMEOUT.toMillis(), ignored -> done.tryFail(
                "guacd sent no complete screen within " + JOIN_TIMEOUT.toSeconds() + " s"));
        Handler<byte[]> feed = bytes -> {
            if (done.future().isComplete()) {
                return;
            }
            try {
                parser.feedUntil(bytes, 0, bytes.length, instruction -> {
                    if (painter.feed(instruction)) {
                        done.tryComplete(painter);
                        return false;
                    }
                    return true;
                });
            } catch (WireFormatException | RuntimeException e) {
                done.tryFail(e);
            }
        };
        ChunkReads.handler(socket, chunk -> feed.handle(ByteBufUtil.getBytes(chunk)));
        socket.closeHandler(ignored -> done.tryFail("guacd closed the join before a complete screen"));
        socket.exceptionHandler(done::tryFail);
        feed.handle(connection.firstBytes().getBytes());
        socket.resume();
        return done.future().onComplete(ignored -> {
            vertx.cancelTimer(timer);
            socket.close();
        });
    }
}
