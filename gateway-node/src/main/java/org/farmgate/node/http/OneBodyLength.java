package org.farmgate.node.http;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpMessage;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * A request's body has one length: a request with both {@code Content-Length} and {@code Transfer-Encoding} is
 * answered 400 and its connection closed (RFC 9112, 6.1). Read as chunked on a kept connection, as Netty reads it, it
 * lets a client smuggle a second request past a proxy in front that reads the length instead.
 *
 * <p>Netty settles the pair inside its decoder, by dropping {@code Content-Length} before Vert.x or this node sees the
 * request. Its documented hook for that ({@code handleTransferEncodingChunkedWithContentLength}) is overridden in a
 * copy of Vert.x's own decoder that each HTTP connection gets when it opens; the decoder's failure is then a bad
 * request, which Vert.x answers with 400 and a close. This and {@code tunnel.Bytes} are the node's only uses of
 * Vert.x internals; {@code OneBodyLengthTest} fails if a Vert.x upgrade breaks it. An HTTP/1.0 request keeps both
 * headers (Netty drops the length for HTTP/1.1 only), so the request itself is checked as well.
 */
public final class OneBodyLength {

    /** The name Vert.x gives its request decoder in a connection's pipeline. */
    private static final String DECODER = "httpDecoder";

    private OneBodyLength() {
    }

    /** Gives a new connection the decoder that refuses both lengths; the listener's connection handler calls it. */
    public static void install(HttpConnection connection, HttpServerOptions options) {
        if (connection instanceof ConnectionBase base) {
            ChannelPipeline pipeline = base.channel().pipeline();
            if (pipeline.get(DECODER) instanceof VertxHttpRequestDecoder) {
                pipeline.replace(DECODER, DECODER, new Decoder(options));
            }
        }
    }

    /** Wraps the listener's request handler: a request that names both lengths gets 400 and a close instead. */
    public static Handler<HttpServerRequest> requests(Handler<HttpServerRequest> next) {
        return request -> {
            if (!request.headers().contains(HttpHeaders.CONTENT_LENGTH)
                    || !request.headers().contains(HttpHeaders.TRANSFER_ENCODING)) {
                next.handle(request);
                return;
            }
            request.response().setStatusCode(400).putHeader(HttpHeaders.CONNECTION, "close")
                    .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
                    .end(new JsonObject().put("error", "a request must not have both Content-Length and "
                            + "Transfer-Encoding").encode())
                    .onComplete(sent -> request.connection().close());
        };
    }

    private static final class Decoder extends VertxHttpRequestDecoder {

        Decoder(HttpServerOptions options) {
            super(options);
        }

        @Override
        protected void handleTransferEncodingChunkedWithContentLength(HttpMessage message) {
            throw new IllegalArgumentException("both Content-Length and Transfer-Encoding");
        }
    }
}
