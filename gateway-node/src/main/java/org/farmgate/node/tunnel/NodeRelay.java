package org.farmgate.node.tunnel;

import io.netty.handler.codec.CorruptedFrameException;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.http.WebSocketFrame;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.farmgate.model.NodeAddress;
import org.farmgate.node.config.ClusterSecurity;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.protocol.GuacamoleStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries a browser's WebSocket to the node that holds its session, when a load balancer delivered it elsewhere.
 *
 * <p>This node opens a WebSocket to the owner's internal relay path, authenticated by a single-use relay ticket
 * from the cluster, and pipes both ways with back-pressure (a full write queue pauses the other side until it
 * drains). The owner sends whole instructions per message, so its messages are forwarded one for one and the
 * browser still gets whole instructions per frame; the browser's bytes go on as binary frames, since the owner
 * parses them as a stream and a message cut anywhere must not be held to UTF-8. The owner's close code and reason
 * (the Guacamole status) reach the browser unchanged; if the owner vanishes, the browser is told 520.
 */
final class NodeRelay {

    private static final Logger LOG = LoggerFactory.getLogger(NodeRelay.class);
    static final String PATH = "/internal/relay/";
    /** Bounded by the owner's own session limit long before this. */
    private static final int RELAYS_PER_OWNER = 1_000_000;

    private final WebSocketClient client;
    /** The browsers relayed now: a shutdown notice goes to them too. */
    private final Set<ServerWebSocket> browsers = ConcurrentHashMap.newKeySet();
    private final NodeMetrics metrics;

    NodeRelay(Vertx vertx, ClusterSecurity security, NodeMetrics metrics) {
        this.metrics = metrics;
        WebSocketClientOptions options = new WebSocketClientOptions()
                // One WebSocket per relayed browser, all to the same few owners: Vert.x's default of 50 per
                // endpoint made the 51st browser relayed to one owner wait for another to leave.
                .setMaxConnections(RELAYS_PER_OWNER)
                // The owner's tunnel never fragments: each message is one frame of at most this length.
                .setMaxFrameSize(Tunnel.MAX_FRAME_TO_CLIENT)
                .setMaxMessageSize(Tunnel.MAX_FRAME_TO_CLIENT)
                .setTryUsePerMessageCompression(false);
        if (security.secured()) {
            security.mutualTls(options).setVerifyHost(false);
        }
        this.client = vertx.createWebSocketClient(options);
    }

    void relay(ServerWebSocket browser, String sessionId, NodeAddress owner, String ownerId, String ticket,
            List<String[]> forwardedParams) {
        StringBuilder uri = new StringBuilder(PATH).append(sessionId).append("?ticket=").append(ticket);
        for (String[] param : forwardedParams) {
            uri.append('&').append(param[0]).append('=').append(URLEncoder.encode(param[1], StandardCharsets.UTF_8));
        }
        client.connect(new WebSocketConnectOptions().setHost(owner.httpHost()).setPort(owner.relayPort())
                        .setURI(uri.toString()).addSubProtocol("guacamole"))
                .onFailure(error -> Closing.withError(browser, GuacamoleStatus.UPSTREAM_UNAVAILABLE.code(),
                        "node " + ownerId + " that holds the session is not reachable: " + error.getMessage()))
                .onSuccess(upstream -> {
                    metrics.relayHop();
                    LOG.debug("session {}: relaying to node {}", sessionId, ownerId);
                    pipe(browser, upstream, ownerId);
                });
    }

    private void pipe(ServerWebSocket browser, WebSocket upstream, String ownerId) {
        if (browser.isClosed()) {
            upstream.close();
            return;
        }
        browsers.add(browser);
        String broke = "the connection to node " + ownerId + " that holds the session broke";
        // A write either side could not take ends the relay: Vert.x 5 reports a failed write only there.
        Handler<AsyncResult<Void>> toBrowser = written -> {
            if (written.failed()) {
                stop(browser, upstream);
                upstream.close();
            }
        };
        Handler<AsyncResult<Void>> toUpstream = written -> {
            if (written.failed()) {
                stop(browser, upstream);
                Closing.withError(browser, GuacamoleStatus.UPSTREAM_UNAVAILABLE.code(), broke);
            }
        };
        upstream.handler(data -> {
            if (!browser.isClosed()) {
                Bytes.Slice slice = Bytes.of(data);
                browser.writeFrame(Bytes.textFrame(slice.array(), slice.offset(), slice.length()))
                        .onComplete(toBrowser);
                pauseWhileFull(upstream, browser);
            }
        });
        browser.handler(data -> {
            if (!upstream.isClosed()) {
                upstream.writeFrame(WebSocketFrame.binaryFrame(data, true)).onComplete(toUpstream);
                pauseWhileFull(browser, upstream);
            }
        });
        upstream.closeHandler(ignored -> {
            stop(browser, upstream);
            Short code = upstream.closeStatusCode();
            // The owner's tunnel always closes with a Guacamole status as reason; anything else means it went away.
            if (code == null || !Closing.isStatus(upstream.closeReason())) {
                Closing.withError(browser, GuacamoleStatus.UPSTREAM_UNAVAILABLE.code(), broke);
            } else if (!browser.isClosed()) {
                browser.close(code, upstream.closeReason());
            }
        });
        upstream.exceptionHandler(error -> LOG.debug("relay to node {}: {}", ownerId, error.getMessage()));
        browser.closeHandler(ignored -> {
            stop(browser, upstream);
            if (!upstream.isClosed()) {
                upstream.close();
            }
        });
        browser.exceptionHandler(error -> {
            LOG.debug("relayed browser WebSocket: {}", error.getMessage());
            if (error instanceof CorruptedFrameException && !upstream.isClosed()) {
                // The owner would else see a polite close and end the session "completed".
                upstream.close(Tunnel.PROTOCOL_ERROR, "the browser broke the WebSocket protocol at the relay");
            }
        });
        browser.resume();
    }

    /** The relay is over: neither side's handlers may move data, pause or resume any more. */
    private void stop(ServerWebSocket browser, WebSocket upstream) {
        browsers.remove(browser);
        Closing.clearHandlers(browser);
        Closing.clearHandlers(upstream);
    }

    private static void pauseWhileFull(WebSocketBase source, WebSocketBase destination) {
        if (!destination.isClosed() && destination.writeQueueFull()) {
            source.pause();
            destination.drainHandler(ignored -> source.resume());
        }
    }

    /**
     * Tells every relayed browser something, as a message of its own: the relay forwards whole messages, so one
     * more between them is whole too. Vert.x hands a write from another thread to the socket's event loop; a
     * browser without room now goes without the notice.
     */
    void tell(String instruction) {
        for (ServerWebSocket browser : browsers) {
            if (!browser.isClosed() && !browser.writeQueueFull()) {
                browser.writeTextMessage(instruction);
            }
        }
    }

    Future<Void> close() {
        return client.close();
    }
}
