package org.farmgate.node.session;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.guacd.HandshakeRequest;


/**
 * A session held by this node: its public record, and the credentials that never leave this node's memory.
 * State changes happen under the session's own lock, in {@link SessionHost}.
 */
public final class LocalSession {

    enum State {
        PENDING,
        ATTACHING,
        ACTIVE,
        ENDED
    }

    private final SessionSpec spec;
    private final InetAddress target;

    State state = State.PENDING;
    SessionInfo info;
    SessionLink tunnel;
    long pendingTimer = -1;
    long durationTimer = -1;
    String terminationReason;

    LocalSession(SessionInfo info, SessionSpec spec, InetAddress target) {
        this.info = info;
        this.spec = spec;
        this.target = target;
    }

    public synchronized SessionInfo info() {
        return info;
    }

    SessionSpec spec() {
        return spec;
    }

    public String id() {
        return info.sessionId();
    }

    /**
     * The handshake for this session: the creator's parameters, the checked address instead of the name, the
     * display fixed at creation (the cost was charged for it), and the browser's own time zone and formats.
     */
    public HandshakeRequest handshakeRequest(ClientHints hints, String defaultTimezone) {
        Map<String, String> arguments = new HashMap<>(spec.parameters());
        arguments.put("hostname", target.getHostAddress());
        arguments.put("port", String.valueOf(spec.port()));
        String timezone = hints.timezone() != null ? hints.timezone()
                : spec.timezone() != null ? spec.timezone() : defaultTimezone;
        if (spec.protocol() == Protocol.RDP) {
            arguments.put("width", String.valueOf(spec.display().width()));
            arguments.put("height", String.valueOf(spec.display().height()));
            arguments.put("dpi", String.valueOf(spec.display().dpi()));
        }
        arguments.putIfAbsent("timezone", timezone);
        return new HandshakeRequest(spec.protocol(), arguments, spec.display(), hints.audioOrDefault(),
                hints.video(), hints.imageOrDefault(), timezone, info.createdBy());
    }
}
