package org.farmgate.node.peer;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.farmgate.error.GatewayException;
import org.farmgate.error.OutcomeUnknownException;
import org.farmgate.model.Json;
import org.farmgate.protocol.GuacamoleStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests from one node to another over the clustered event bus, with JSON bodies. This is the only way a session's
 * credentials travel: from the node that took the API call straight to the node that will run the session, never
 * through a cluster map. A {@link GatewayException} on the receiving node comes back as the same status and message.
 * A request that certainly never reached its node (nobody serves that address, or no connection could be made)
 * fails with {@link NodeUnreachableException}; one that got no answer in time fails with
 * {@link OutcomeUnknownException}, since the node may have acted on it: callers must not treat the two alike.
 */
public final class NodeMessenger {

    private static final Logger LOG = LoggerFactory.getLogger(NodeMessenger.class);

    /** The request never reached the node: gone, or not listening yet. */
    public static final class NodeUnreachableException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        public NodeUnreachableException(String message) {
            super(message, null, false, false);
        }
    }

    private final Vertx vertx;
    private final long timeoutMs;

    public NodeMessenger(Vertx vertx, long timeoutMs) {
        this.vertx = vertx;
        this.timeoutMs = timeoutMs;
    }

    /** Where a node hears of {@code action}: a request it serves, or a notice published to it. */
    public static String address(String nodeId, String action) {
        return "farmgate.node." + nodeId + "." + action;
    }

    /** Serves {@code action} for this node: requests of type {@code Q} answered with a {@code R}. */
    public <Q, R> MessageConsumer<String> serve(String nodeId, String action, Class<Q> requestType,
            Function<Q, Future<R>> handler) {
        return serve(nodeId, action, requestType, (request, headers) -> handler.apply(request));
    }

    /**
     * As {@link #serve(String, String, Class, Function)}, the handler also reading the request's headers: what a
     * sender adds beside the body, which a node of the version before ignores where it would refuse a body with a
     * field it does not know.
     */
    public <Q, R> MessageConsumer<String> serve(String nodeId, String action, Class<Q> requestType,
            BiFunction<Q, MultiMap, Future<R>> handler) {
        return vertx.eventBus().<String>consumer(address(nodeId, action), message -> {
            Q request;
            try {
                request = Json.mapper().readValue(message.body(), requestType);
            } catch (JsonProcessingException e) {
                message.fail(GuacamoleStatus.CLIENT_BAD_REQUEST.code(), "unreadable " + action + " request");
                return;
            }
            Future<R> answer;
            try {
                answer = handler.apply(request, message.headers());
            } catch (RuntimeException e) {
                answer = Future.failedFuture(e);
            }
            answer.onSuccess(result -> reply(message, result)).onFailure(error -> {
                if (error instanceof GatewayException known) {
                    message.fail(known.guacamoleCode(), known.getMessage());
                } else {
                    LOG.warn("{} request failed", action, error);
                    message.fail(GuacamoleStatus.SERVER_ERROR.code(), "internal error on the owning node");
                }
            });
        });
    }

    /**
     * Tells {@code nodeId} of something and waits for nothing: no reply travels back, and a node not there misses
     * it (the teller does again next time, or the listener does not depend on every notice).
     */
    public void tell(String nodeId, String action, Object notice) {
        try {
            vertx.eventBus().send(address(nodeId, action), Json.mapper().writeValueAsString(notice));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("unserialisable " + action + " notice", e);
        }
    }

    /** Hears what other nodes {@linkplain #tell tell} this node of {@code action}; an unreadable notice is dropped. */
    public <Q> MessageConsumer<String> hear(String nodeId, String action, Class<Q> noticeType, Consumer<Q> listener) {
        return vertx.eventBus().<String>consumer(address(nodeId, action), message -> {
            try {
                listener.accept(Json.mapper().readValue(message.body(), noticeType));
            } catch (JsonProcessingException e) {
                LOG.warn("an unreadable {} notice was dropped", action);
            }
        });
    }

    public <R> Future<R> request(String nodeId, String action, Object request, Class<R> replyType) {
        return request(nodeId, action, request, Map.of(), replyType);
    }

    /** A request with {@code headers} beside its body. */
    public <R> Future<R> request(String nodeId, String action, Object request, Map<String, String> headers,
            Class<R> replyType) {
        String body;
        try {
            body = Json.mapper().writeValueAsString(request);
        } catch (JsonProcessingException e) {
            return Future.failedFuture(e);
        }
        DeliveryOptions options = new DeliveryOptions().setSendTimeout(timeoutMs);
        headers.forEach(options::addHeader);
        return vertx.eventBus().<String>request(address(nodeId, action), body, options)
                .recover(error -> Future.failedFuture(translate(nodeId, error)))
                .compose(reply -> {
                    try {
                        return Future.succeededFuture(Json.mapper().readValue(reply.body(), replyType));
                    } catch (JsonProcessingException e) {
                        return Future.failedFuture(e);
                    }
                });
    }

    private static <R> void reply(Message<String> message, R result) {
        try {
            message.reply(Json.mapper().writeValueAsString(result));
        } catch (JsonProcessingException e) {
            message.fail(GuacamoleStatus.SERVER_ERROR.code(), "unserialisable reply");
        }
    }

    private Throwable translate(String nodeId, Throwable error) {
        if (error instanceof ReplyException reply) {
            return switch (reply.failureType()) {
                case RECIPIENT_FAILURE -> GatewayException.of(reply.failureCode(), reply.getMessage());
                case TIMEOUT -> new OutcomeUnknownException("node " + nodeId + " did not answer within " + timeoutMs
                        + " ms");
                default -> new NodeUnreachableException("node " + nodeId + " cannot be reached ("
                        + reply.failureType().name().toLowerCase() + ")");
            };
        }
        return error;
    }
}
