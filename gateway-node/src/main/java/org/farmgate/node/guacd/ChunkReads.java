package org.farmgate.node.guacd;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.Handler;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;

/**
 * Reads guacd's socket as Netty delivers it: each chunk in the memory it was read into, usually off the heap, where
 * {@link NetSocket#handler} would first copy it onto the heap. The relay checks a chunk once and writes it on from
 * there (bench/RESULTS.md, issue 26, item 6).
 *
 * <p>Every reader of a guacd socket reads it this way, from the handshake on: {@code pause} and {@code resume} then
 * stop and start the connection's own reading at once, with nothing queued where another handler would not see it
 * (the public handler's queue would keep what arrived after a pause from a handler set this way).
 */
public final class ChunkReads {

    private ChunkReads() {
    }

    /**
     * Hands each chunk to {@code handler}, which must not keep it past its return without retaining it (the chunk
     * is released then); with {@code null}, every chunk is dropped.
     */
    public static void handler(NetSocket socket, Handler<ByteBuf> handler) {
        ((NetSocketInternal) socket).messageHandler(message -> {
            try {
                if (handler != null && message instanceof ByteBuf chunk) {
                    handler.handle(chunk);
                }
            } finally {
                ReferenceCountUtil.release(message);
            }
        });
    }
}
