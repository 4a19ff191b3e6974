package org.farmgate.node.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.http.WebSocketFrameType;
import io.vertx.core.http.impl.ws.WebSocketFrameImpl;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * The relay's two shortcuts past Vert.x's public API, kept in one place: reading a buffer's bytes in place, and
 * sending bytes already known to be valid UTF-8 as a text frame. The public API would decode every frame into a
 * String and encode it back, which measured as the largest cost of relaying (see bench/RESULTS.md); the tests of
 * this package fail if a Vert.x upgrade breaks either shortcut.
 */
final class Bytes {

    /** A run of bytes in an array. */
    record Slice(byte[] array, int offset, int length) {
    }

    private Bytes() {
    }

    /** The buffer's bytes, in place when it is backed by an array (Vert.x hands socket data over on the heap). */
    static Slice of(Buffer buffer) {
        if (buffer instanceof BufferInternal internal) {
            ByteBuf byteBuf = internal.getByteBuf();
            if (byteBuf.hasArray()) {
                return new Slice(byteBuf.array(), byteBuf.arrayOffset() + byteBuf.readerIndex(),
                        byteBuf.readableBytes());
            }
        }
        byte[] copy = buffer.getBytes();
        return new Slice(copy, 0, copy.length);
    }

    /** A final text frame carrying these bytes as they are; they must be valid UTF-8 (the scanner checked). */
    static WebSocketFrame textFrame(byte[] array, int offset, int length) {
        return new WebSocketFrameImpl(WebSocketFrameType.TEXT, Unpooled.wrappedBuffer(array, offset, length), true);
    }
}
