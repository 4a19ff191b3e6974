package org.farmgate.node.session;

import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.farmgate.model.CostModel;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.model.SessionStatus;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.tunnel.Tunnel;
import org.farmgate.node.tunnel.TunnelEnd;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.router.SessionDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sessions this node runs, through their whole life: pending until a WebSocket attaches (or the pending time
 * runs out), attaching while the guacd handshake runs, active while the tunnel relays, then ended. Every change is
 * published to the {@link SessionDirectory}; ended records stay there for the retention time so that clients can
 * read how a session ended, then go.
 *
 * <p>Transitions take the session's own lock and do no I/O under it; tunnels are told to end through their own
 * event loop.
 */
public final class SessionHost {

    private static final Logger LOG = LoggerFactory.getLogger(SessionHost.class);

    /** Session times. */
    public record Limits(Duration pendingTimeout, Duration maxDuration, Duration retention) {
    }

    private final Vertx vertx;
    private final String nodeId;
    private final Limits limits;
    private final SessionDirectory directory;
    private final SessionLedger ledger;
    private final Clock clock;
    private final ConcurrentMap<String, LocalSession> sessions = new ConcurrentHashMap<>();

    public SessionHost(Vertx vertx, String nodeId, Limits limits, SessionDirectory directory, SessionLedger ledger,
            Clock clock) {
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.limits = limits;
        this.directory = directory;
        this.ledger = ledger;
        this.clock = clock;
    }

    /**
     * Opens a pending session that the router placed here and charged {@code chargedMb}. Limits were checked by the
     * router's reservation; the credentials stay in this node's memory.
     */
    public SessionInfo open(String sessionId, Identity creator, SessionSpec spec, InetAddress target, int chargedMb) {
        SessionInfo info = new SessionInfo(sessionId, spec.protocol(), SessionStatus.PENDING, clock.instant(),
                spec.hostname(), spec.port(), spec.username(), creator.name(), 0, nodeId, chargedMb, null, null);
        LocalSession session = new LocalSession(info, spec, target);
        synchronized (session) {
            sessions.put(sessionId, session);
            publish(info);
            session.pendingTimer = vertx.setTimer(limits.pendingTimeout().toMillis(), id -> expire(session));
        }
        LOG.info("session {} pending: node={} protocol={} target={}:{} by={} charged={}MB", sessionId, nodeId,
                spec.protocol().wireName(), spec.hostname(), spec.port(), creator.name(), chargedMb);
        return info;
    }

    /**
     * Claims a pending session for a WebSocket. Only its creator (or an admin) may, and only once: a second
     * WebSocket is refused while the first is attaching or attached.
     */
    public LocalSession beginAttach(String sessionId, Identity who) throws AttachRefusedException {
        LocalSession session = sessions.get(sessionId);
        if (session == null || !mayUse(who, session.info())) {
            throw new AttachRefusedException(GuacamoleStatus.RESOURCE_NOT_FOUND, "no session " + sessionId);
        }
        synchronized (session) {
            switch (session.state) {
                case PENDING -> {
                    session.state = LocalSession.State.ATTACHING;
                    cancelTimer(session.pendingTimer);
                    session.pendingTimer = -1;
                    return session;
                }
                case ATTACHING, ACTIVE -> throw new AttachRefusedException(GuacamoleStatus.CLIENT_TOO_MANY,
                        "session " + sessionId + " already has a WebSocket attached");
                default -> throw new AttachRefusedException(GuacamoleStatus.RESOURCE_CLOSED,
                        "session " + sessionId + " has ended (" + session.info.status().wireName() + ")");
            }
        }
    }

    /** The handshake succeeded: the tunnel takes over. False when the session ended meanwhile (deleted). */
    public boolean activate(LocalSession session, Tunnel tunnel) {
        SessionInfo info;
        synchronized (session) {
            if (session.state != LocalSession.State.ATTACHING) {
                return false;
            }
            session.state = LocalSession.State.ACTIVE;
            session.tunnel = tunnel;
            session.info = session.info.attached();
            info = session.info;
            long age = Duration.between(info.createdAt(), clock.instant()).toMillis();
            long left = Math.max(1, limits.maxDuration().toMillis() - age);
            session.durationTimer = vertx.setTimer(left, id -> terminate(session, GuacamoleStatus.SESSION_TIMEOUT,
                    "the session reached its maximum duration of " + limits.maxDuration().toSeconds() + " s"));
            publish(info);
        }
        ledger.activated(info);
        LOG.info("session {} active: node={} protocol={}", info.sessionId(), nodeId, info.sessionType().wireName());
        return true;
    }

    /** The handshake failed, or the client left before it finished. */
    public void attachFailed(LocalSession session, SessionStatus status, String reason) {
        finish(session, status, reason, null);
    }

    public void tunnelEnded(LocalSession session, TunnelEnd end) {
        String reason = session.terminationReason != null ? session.terminationReason : end.message();
        finish(session, end.isError() ? SessionStatus.ERROR : SessionStatus.COMPLETED, reason, end);
    }

    /**
     * Deletes a session: its tunnel and guacd connection really end, and its record goes at once.
     *
     * @return false when there is no such session for this caller
     */
    public boolean delete(String sessionId, Identity who) {
        LocalSession session = sessions.get(sessionId);
        if (session == null || !mayUse(who, session.info())) {
            return false;
        }
        Tunnel tunnel;
        synchronized (session) {
            tunnel = session.tunnel;
            boolean wasLive = session.state != LocalSession.State.ENDED;
            session.tunnel = null;
            session.state = LocalSession.State.ENDED;
            cancelTimer(session.pendingTimer);
            cancelTimer(session.durationTimer);
            forget(session);
            if (wasLive) {
                ledger.released(session.info);
            }
        }
        if (tunnel != null) {
            tunnel.terminate(GuacamoleStatus.SESSION_CLOSED, "the session was deleted");
        }
        LOG.info("session {} deleted: node={} by={}", sessionId, nodeId, who.name());
        return true;
    }

    /** Active sessions by protocol, and what {@code model} charges for them: the calibrator's input. */
    public record Usage(Map<Protocol, Integer> sessions, long chargedMb) {
    }

    public Usage activeUsage(CostModel model) {
        Map<Protocol, Integer> counts = new EnumMap<>(Protocol.class);
        long charged = 0;
        for (LocalSession session : sessions.values()) {
            synchronized (session) {
                if (session.state == LocalSession.State.ACTIVE) {
                    SessionSpec spec = session.spec();
                    counts.merge(spec.protocol(), 1, Integer::sum);
                    charged += model.estimateMb(spec.protocol(), spec.display());
                }
            }
        }
        return new Usage(counts, charged);
    }

    /** The sessions this node holds, as the reservations they stand for: the truth the registry is kept to. */
    public ReservationBook reservations() {
        List<Reservation> held = new java.util.ArrayList<>();
        for (LocalSession session : sessions.values()) {
            SessionInfo info = session.info();
            if (info.status().isLive()) {
                held.add(new Reservation(info.sessionId(), info.sessionType(), info.estimatedMemoryMb(),
                        info.status() == SessionStatus.ACTIVE, info.createdAt()));
            }
        }
        return ReservationBook.of(held);
    }

    public LocalSession local(String sessionId) {
        return sessions.get(sessionId);
    }

    public List<LocalSession> live() {
        return sessions.values().stream().filter(s -> s.info().status().isLive()).toList();
    }

    /** Ends every tunnel, for shutdown. */
    public void terminateAll(GuacamoleStatus status, String reason) {
        sessions.values().forEach(session -> terminate(session, status, reason));
    }

    public static boolean mayUse(Identity who, SessionInfo info) {
        return who.isAdmin() || who.name().equals(info.createdBy());
    }

    private void terminate(LocalSession session, GuacamoleStatus status, String reason) {
        Tunnel tunnel;
        synchronized (session) {
            tunnel = session.tunnel;
            if (session.state == LocalSession.State.ENDED) {
                return;
            }
            session.terminationReason = reason;
        }
        if (tunnel != null) {
            tunnel.terminate(status, reason);
        } else {
            finish(session, SessionStatus.COMPLETED, reason, null);
        }
    }

    private void expire(LocalSession session) {
        synchronized (session) {
            if (session.state != LocalSession.State.PENDING) {
                return;
            }
        }
        finish(session, SessionStatus.EXPIRED, "no WebSocket attached within "
                + limits.pendingTimeout().toSeconds() + " s", null);
    }

    private void finish(LocalSession session, SessionStatus status, String reason, TunnelEnd end) {
        SessionInfo info;
        synchronized (session) {
            if (session.state == LocalSession.State.ENDED) {
                return; // deleted, or already finished by whichever end came first
            }
            session.state = LocalSession.State.ENDED;
            session.tunnel = null;
            cancelTimer(session.pendingTimer);
            cancelTimer(session.durationTimer);
            session.info = session.info.ended(status, clock.instant(), reason);
            info = session.info;
            publish(info);
        }
        ledger.released(info);
        long seconds = Duration.between(info.createdAt(), info.endedAt()).toSeconds();
        if (end != null) {
            LOG.info("session {} {}: node={} protocol={} duration={}s bytes_to_client={} bytes_to_guacd={} "
                    + "reason=\"{}\"", info.sessionId(), status.wireName(), nodeId, info.sessionType().wireName(),
                    seconds, end.bytesToClient(), end.bytesToGuacd(), reason);
        } else {
            LOG.info("session {} {}: node={} protocol={} duration={}s reason=\"{}\"", info.sessionId(),
                    status.wireName(), nodeId, info.sessionType().wireName(), seconds, reason);
        }
        long retention = limits.retention().toMillis();
        if (retention == 0) {
            synchronized (session) {
                forget(session);
            }
        } else {
            vertx.setTimer(retention, id -> {
                synchronized (session) {
                    forget(session);
                }
            });
        }
    }

    /** Drops the session and its record; called under the session's lock so no publish can resurrect it. */
    private void forget(LocalSession session) {
        if (sessions.remove(session.id(), session)) {
            directory.remove(session.id()).exceptionally(error -> {
                LOG.warn("could not remove the record of session {}: {}", session.id(), error.getMessage());
                return null;
            });
        }
    }

    /** Writes the record; called under the session's lock, so a session's records are written in order. */
    private void publish(SessionInfo info) {
        directory.publish(info).exceptionally(error -> {
            LOG.warn("could not publish the record of session {}: {}", info.sessionId(), error.getMessage());
            return null;
        });
    }

    private void cancelTimer(long timer) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }
}
