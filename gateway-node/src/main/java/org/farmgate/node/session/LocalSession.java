package org.farmgate.node.session;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.model.Watcher;
import org.farmgate.node.guacd.HandshakeRequest;
import org.farmgate.node.hostkey.HostKeyTrust;


/**
 * A session held by this node: its public record, and the credentials that never leave this node's memory.
 * State changes happen under the session's own lock, in {@link SessionHost}.
 */
public final class LocalSession {

    enum State {
        PENDING,
        ATTACHING,
        ACTIVE,
        /** Its client went without a word; guacd's connection is held ({@link #anchor}) to be joined again. */
        DETACHED,
        ENDED
    }

    private final SessionSpec spec;
    /** Where guacd connects: the target's checked address, or the loopback end of its jump hosts' chain. */
    private final InetSocketAddress target;

    State state = State.PENDING;
    SessionInfo info;
    SessionLink tunnel;
    /** What holds guacd's connection while no client is attached; stays while a later client is joined. */
    SessionLink anchor;
    /** guacd's id of the session's connection, from {@code ready}: what a returning client joins. */
    String connectionId;
    /** Who is attached by a share link, each by their own tunnel and guacd connection (a join). */
    final Map<SessionLink, Watcher> watchers = new LinkedHashMap<>();
    /** Watchers whose guacd join is under way: they count against the limit already. */
    int watchersJoining;
    long graceTimer = -1;
    long pendingTimer = -1;
    /** When the session's first record was written: the create is answered after it, so any node finds it then. */
    CompletionStage<Void> published = CompletableFuture.completedFuture(null);
    long durationTimer = -1;
    String terminationReason;
    /** Hears its display and input when it is recorded. */
    volatile RecordingTap recording = RecordingTap.NONE;

    private final Map<String, String> driveArguments;

    LocalSession(SessionInfo info, SessionSpec spec, InetSocketAddress target, Map<String, String> driveArguments) {
        this.driveArguments = Map.copyOf(driveArguments);
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

    /** What a tunnel of this session tells its recording. */
    public RecordingTap recording() {
        return recording;
    }

    /**
     * The handshake for this session: the creator's parameters, the checked address instead of the name, the
     * node's own drive directory when the session asked for a drive, the display fixed at creation (the cost was
     * charged for it), and the browser's own time zone and formats.
     */
    public HandshakeRequest handshakeRequest(ClientHints hints, String defaultTimezone) {
        String address = target.getAddress().getHostAddress();
        Map<String, String> arguments = new HashMap<>(spec.parameters());
        HostKeyTrust.forGuacd(arguments, address, target.getPort());
        arguments.put("hostname", address);
        arguments.put("port", String.valueOf(target.getPort()));
        arguments.putAll(driveArguments);
        String timezone = hints.timezone() != null ? hints.timezone()
                : spec.timezone() != null ? spec.timezone() : defaultTimezone;
        if (spec.protocol() == Protocol.RDP) {
            arguments.put("width", String.valueOf(spec.display().width()));
            arguments.put("height", String.valueOf(spec.display().height()));
            arguments.put("dpi", String.valueOf(spec.display().dpi()));
        }
        arguments.putIfAbsent("timezone", timezone);
        HandshakeRequest request = new HandshakeRequest(spec.protocol(), arguments, spec.display(),
                hints.audioOrDefault(), hints.video(), hints.imageOrDefault(), timezone, info.createdBy());
        String join;
        synchronized (this) {
            join = anchor != null ? connectionId : null;
        }
        return join != null ? request.joining(join) : request;
    }

    /**
     * A read-only join of the session's guacd connection for a picture of its screen, under a name that says so;
     * null while the session has no guacd connection (nobody opened it yet), since a join without a connection id
     * would start a new connection.
     */
    public HandshakeRequest pictureRequest(List<String> images) {
        String join;
        synchronized (this) {
            join = connectionId;
        }
        return join == null ? null : new HandshakeRequest(spec.protocol(), Map.of("read-only", "true"),
                spec.display(), List.of(), List.of(), images, "UTC", "farmgate thumbnail", join);
    }

    /**
     * A watcher's handshake: a join of the session's guacd connection under the watcher's name, {@code read-only}
     * when the link is, so that guacd drops their input too. No connection argument, no credential, is sent.
     */
    public HandshakeRequest watchRequest(ClientHints hints, String defaultTimezone, String name, boolean readOnly) {
        String join;
        synchronized (this) {
            join = connectionId;
        }
        String timezone = hints.timezone() != null ? hints.timezone() : defaultTimezone;
        return new HandshakeRequest(spec.protocol(), readOnly ? Map.of("read-only", "true") : Map.of(),
                spec.display(), hints.audioOrDefault(), hints.video(), hints.imageOrDefault(), timezone, name, join);
    }
}
