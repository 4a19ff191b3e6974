package org.farmgate.node.guacd;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Protocol;

/**
 * What the gateway tells guacd during the handshake.
 *
 * @param arguments connection argument values by guacd's argument name; names guacd does not list are not sent,
 *     and arguments guacd lists but this map lacks are sent empty (guacd's "unset")
 * @param userName the name guacd shows for this user ({@code name} instruction)
 */
public record HandshakeRequest(Protocol protocol, Map<String, String> arguments, DisplaySize display,
        List<String> audioMimetypes, List<String> videoMimetypes, List<String> imageMimetypes, String timezone,
        String userName) {

    public HandshakeRequest {
        Objects.requireNonNull(protocol, "protocol");
        arguments = Map.copyOf(arguments);
        audioMimetypes = List.copyOf(audioMimetypes);
        videoMimetypes = List.copyOf(videoMimetypes);
        imageMimetypes = List.copyOf(imageMimetypes);
    }

    @Override
    public String toString() {
        return "HandshakeRequest[" + protocol.wireName() + ", arguments=" + new TreeMap<>(arguments).keySet() + "]";
    }
}
