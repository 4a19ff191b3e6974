package org.farmgate.node.tunnel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.DuplicatedByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.WebSocketBase;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.http.WebSocketFrameType;
import io.vertx.core.http.impl.ws.WebSocketFrameImpl;
import io.vertx.core.internal.buffer.BufferInternal;

/**
 * The relay's shortcuts past Vert.x's public API, kept in one place: reading a buffer's bytes in place, and sending
 * bytes already known to be valid UTF-8 as a text frame, as they are. The public API would decode every frame into a
 * String and encode it back, which measured as the largest cost of relaying (see bench/RESULTS.md), and Vert.x copies
 * a frame read into pooled memory onto the heap before writing it, for Netty to copy it back off the heap to send it;
 * the tests of this package fail if a Vert.x upgrade breaks a shortcut.
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

    /** The buffer as Netty's, shared, not copied. */
    static ByteBuf byteBuf(Buffer buffer) {
        return buffer instanceof BufferInternal internal ? internal.getByteBuf() : Unpooled.wrappedBuffer(
                buffer.getBytes());
    }

    /** A final text frame carrying these bytes as they are; they must be valid UTF-8 (the scanner checked). */
    static WebSocketFrame textFrame(byte[] array, int offset, int length) {
        return new WebSocketFrameImpl(WebSocketFrameType.TEXT, Unpooled.wrappedBuffer(array, offset, length), true);
    }

    /**
     * Sends these bytes, valid UTF-8, as one final text frame written from the memory they are in, and takes the
     * caller's reference to them, released once the write is done or has failed: Vert.x makes a frame's buffer
     * unreleasable, so Netty's release after writing it does nothing. Call on the WebSocket's event loop: Vert.x
     * answers a write to a closed WebSocket at once, so a closed one is checked here, where nothing can close it
     * meanwhile.
     */
    static Future<Void> writeText(WebSocketBase ws, ByteBuf payload) {
        if (ws.isClosed()) {
            payload.release();
            return Future.failedFuture("WebSocket is closed");
        }
        Future<Void> written = ws.writeFrame(new WebSocketFrameImpl(WebSocketFrameType.TEXT, new AsRead(payload),
                true));
        written.onComplete(ignored -> payload.release());
        return written;
    }

    /**
     * A buffer Vert.x writes as it is. Vert.x copies a frame's pooled or composite buffer onto the heap first
     * (VertxHandler.safeBuffer, written for a buffer a handler might keep: this one is written once, then released),
     * and only the allocator tells it what a buffer is.
     */
    @SuppressWarnings("deprecation") // ByteBuf.duplicate() is Netty's way to make one; only this class can be extended
    private static final class AsRead extends DuplicatedByteBuf {

        AsRead(ByteBuf read) {
            super(read);
        }

        @Override
        public ByteBufAllocator alloc() {
            return UnpooledByteBufAllocator.DEFAULT;
        }
    }
}
