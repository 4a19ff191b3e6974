package org.farmgate.node.guacd;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;

/**
 * A guacd connection past {@code ready}. The socket is paused, so no byte is lost before the relay takes it, and is
 * read through {@link ChunkReads} (its next reader must read it so too); {@code firstBytes} holds what guacd sent
 * after {@code ready} in the same read.
 *
 * @param connectionId guacd's id for the connection ({@code $...}), which other users could join
 */
public record GuacdConnection(NetSocket socket, String connectionId, String protocolVersion, Buffer firstBytes) {
}
