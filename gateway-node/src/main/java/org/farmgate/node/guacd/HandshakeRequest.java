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
 * @param join the id of a running guacd connection to join ({@code select,$id}), or null for a new connection
 */
public record HandshakeRequest(Protocol protocol, Map<String, String> arguments, DisplaySize display,
        List<String> audioMimetypes, List<String> videoMimetypes, List<String> imageMimetypes, String timezone,
        String userName, String join) {

    public HandshakeRequest(Protocol protocol, Map<String, String> arguments, DisplaySize display,
            List<String> audioMimetypes, List<String> videoMimetypes, List<String> imageMimetypes, String timezone,
            String userName) {
        this(protocol, arguments, display, audioMimetypes, videoMimetypes, imageMimetypes, timezone, userName, null);
    }

    /**
     * The same user joining the running connection {@code connectionId}: guacd sends a joining user the whole
     * current display. It needs none of the connection's arguments, so no credential is sent again.
     */
    public HandshakeRequest joining(String connectionId) {
        return new HandshakeRequest(protocol, Map.of(), display, audioMimetypes, videoMimetypes, imageMimetypes,
                timezone, userName, connectionId);
    }

    /** What {@code select} names: the connection to join, or the protocol. */
    public String selected() {
        return join != null ? join : protocol.wireName();
    }

    public HandshakeRequest {
        Objects.requireNonNull(protocol, "protocol");
        arguments = Map.copyOf(arguments);
        audioMimetypes = List.copyOf(audioMimetypes);
        videoMimetypes = List.copyOf(videoMimetypes);
        imageMimetypes = List.copyOf(imageMimetypes);
    }

    @Override
    public String toString() {
        return "HandshakeRequest[" + selected() + ", arguments=" + new TreeMap<>(arguments).keySet() + "]";
    }
}
