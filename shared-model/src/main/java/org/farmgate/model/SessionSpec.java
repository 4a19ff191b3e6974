package org.farmgate.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything a node needs to open a session's guacd connection. Holds credentials: it lives only in the memory of
 * the node that runs the session, and its {@link #toString()} names parameters without their values.
 *
 * @param parameters guacd connection arguments by guacd's own name ({@code username}, {@code private-key}, ...),
 *     without {@code hostname} and {@code port}, which the node fills in with the checked address
 * @param timezone the client's IANA time zone when it sent one at creation, or null
 * @param jumpHosts the SSH jump hosts the node reaches the target through, in order (none: directly)
 */
public record SessionSpec(Protocol protocol, String hostname, int port, DisplaySize display, String timezone,
        Map<String, String> parameters, List<JumpHost> jumpHosts) {

    public SessionSpec {
        Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(display, "display");
        parameters = Map.copyOf(parameters);
        jumpHosts = jumpHosts == null ? List.of() : List.copyOf(jumpHosts);
    }

    /** A session reached directly. */
    public SessionSpec(Protocol protocol, String hostname, int port, DisplaySize display, String timezone,
            Map<String, String> parameters) {
        this(protocol, hostname, port, display, timezone, parameters, List.of());
    }

    public SessionSpec withParameters(Map<String, String> changed) {
        return new SessionSpec(protocol, hostname, port, display, timezone, changed, jumpHosts);
    }

    public SessionSpec withDisplay(DisplaySize changed) {
        return new SessionSpec(protocol, hostname, port, changed, timezone, parameters, jumpHosts);
    }

    public SessionSpec withJumpHosts(List<JumpHost> changed) {
        return new SessionSpec(protocol, hostname, port, display, timezone, parameters, changed);
    }

    public String username() {
        return parameters.get("username");
    }

    @Override
    public String toString() {
        return "SessionSpec[" + protocol.wireName() + "://" + hostname + ":" + port + ", " + display.width() + "x"
                + display.height() + "@" + display.dpi() + ", parameters=" + new TreeMap<>(parameters).keySet()
                + (jumpHosts.isEmpty() ? "" : ", through=" + jumpHosts) + "]";
    }
}
