package org.farmgate.node.session;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.farmgate.error.ConflictException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.SessionClosedException;
import org.farmgate.error.TooManyException;
import org.farmgate.model.CostModel;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.model.SessionStatus;
import org.farmgate.model.Watcher;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Identity;
import org.farmgate.protocol.GuacamoleStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sessions this node runs, through their whole life: pending until a WebSocket attaches (or the pending time
 * runs out), attaching while the guacd handshake runs, active while the tunnel relays, then ended. This class
 * decides the states; every change is handed to the {@link SessionLedger}, which writes the records and gives back
 * what an ended session held. Ended records stay readable for the retention time, then go.
 *
 * <p>Transitions take the session's own lock and do no I/O under it; tunnels are told to end through their own
 * event loop.
 */
public final class SessionHost {

    private static final Logger LOG = LoggerFactory.getLogger(SessionHost.class);

    /**
     * Session times.
     *
     * @param reattachGrace how long a session whose client went without a word waits for one to come back, its guacd
     *     connection held; zero: it ends with its client
     * @param maxWatchers how many may watch one session through share links at once (each is a guacd user)
     */
    public record Limits(Duration pendingTimeout, Duration maxDuration, Duration retention, Duration reattachGrace,
            int maxWatchers) {
    }

    private final Vertx vertx;
    private final String nodeId;
    private final Limits limits;
    private final SessionLedger ledger;
    private final SessionDrives drives;
    private final Clock clock;
    private final ConcurrentMap<String, LocalSession> sessions = new ConcurrentHashMap<>();
    private final List<Promise<Boolean>> idleWaiters = new CopyOnWriteArrayList<>();
    private volatile Recorders recorders = Recorders.NONE;

    public SessionHost(Vertx vertx, String nodeId, Limits limits, SessionLedger ledger, SessionDrives drives,
            Clock clock) {
        this.drives = drives;
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.limits = limits;
        this.ledger = ledger;
        this.clock = clock;
    }

    /**
     * Opens a pending session that the router placed here and charged {@code chargedMb}. Limits were checked by the
     * router's reservation; the credentials stay in this node's memory.
     */
    /** @param target where guacd connects: the target's checked address, or the end of its jump hosts' chain */
    public SessionInfo open(String sessionId, Identity creator, SessionSpec spec, InetSocketAddress target,
            int chargedMb, Origin origin) {
        SessionInfo info = new SessionInfo(sessionId, spec.protocol(), SessionStatus.PENDING, clock.instant(),
                spec.hostname(), spec.port(), spec.username(), creator.name(), creator.id(), 0, nodeId, chargedMb, null,
                null, List.of(), creator.email(), 1, origin.recorded());
        LocalSession session = new LocalSession(info, spec, target, drives.arguments(sessionId, spec));
        synchronized (session) {
            LocalSession already = sessions.putIfAbsent(sessionId, session);
            if (already != null) {
                // The placing node asked again after a late answer: it is the same session, opened once.
                return already.info();
            }
            session.published = ledger.opened(info, origin);
            if (origin.recorded()) {
                session.recording = recorders.start(info, origin);
            }
            session.pendingTimer = vertx.setTimer(limits.pendingTimeout().toMillis(), id -> expire(session));
        }
        LOG.info("session {} pending: node={} protocol={} target={}:{} by={} owner={}{} charged={}MB", sessionId,
                nodeId, spec.protocol().wireName(), spec.hostname(), spec.port(), creator.name(), creator.id(),
                creator.email() == null ? "" : " email=" + creator.email(), chargedMb);
        return info;
    }

    /** Who records the sessions whose origin says so; none until the node's recordings are set up. */
    public void recorders(Recorders value) {
        this.recorders = value;
    }

    /**
     * Claims a pending session for a WebSocket. Only its creator (or an admin) may, and only once: a second
     * WebSocket is refused while the first is attaching or attached.
     */
    public LocalSession beginAttach(String sessionId, Identity who) {
        LocalSession session = sessions.get(sessionId);
        if (session == null || !mayUse(who, session.info())) {
            throw new NotFoundException("no session " + sessionId);
        }
        synchronized (session) {
            switch (session.state) {
                case PENDING -> {
                    session.state = LocalSession.State.ATTACHING;
                    cancelTimer(session.pendingTimer);
                    session.pendingTimer = -1;
                    return session;
                }
                case DETACHED -> {
                    session.state = LocalSession.State.ATTACHING;
                    cancelTimer(session.graceTimer);
                    session.graceTimer = -1;
                    return session;
                }
                case ATTACHING, ACTIVE -> throw new TooManyException(
                        "session " + sessionId + " already has a WebSocket attached");
                default -> throw new SessionClosedException(
                        "session " + sessionId + " has ended (" + session.info.status().wireName() + ")");
            }
        }
    }

    /**
     * Claims a place for someone who came by a share link. The session must have started (a watcher joins its guacd
     * connection, which exists once its owner attached), and have room under the watcher limit.
     */
    public Watch beginWatch(String sessionId, Identity who) {
        LocalSession session = sessions.get(sessionId);
        Identity.ShareScope scope = who.share();
        if (session == null || scope == null || !mayAttach(who, session.info())) {
            throw new NotFoundException("no session " + sessionId);
        }
        synchronized (session) {
            switch (session.state) {
                case ACTIVE, DETACHED -> {
                    if (session.watchers.size() + session.watchersJoining >= limits.maxWatchers()) {
                        throw new TooManyException("session " + sessionId + " already has " + limits.maxWatchers()
                                + " watchers, the most allowed (GW_MAX_WATCHERS_PER_SESSION)");
                    }
                    session.watchersJoining++;
                    return new Watch(session, new Watcher(who.name(), scope.shareId(), scope.readOnly(),
                            clock.instant()));
                }
                case PENDING, ATTACHING -> throw new ConflictException("session " + sessionId
                        + " has not started yet: a share link works once its owner is connected");
                default -> throw new SessionClosedException(
                        "session " + sessionId + " has ended (" + session.info.status().wireName() + ")");
            }
        }
    }

    /**
     * One watcher's place in a session, from the claim to the end of their tunnel. The watcher's tunnel never
     * changes the session's state: the owner's tunnel and the session's own end decide that.
     */
    public final class Watch {

        private final LocalSession session;
        private final Watcher watcher;
        private SessionLink link;
        private boolean released;

        private Watch(LocalSession session, Watcher watcher) {
            this.session = session;
            this.watcher = watcher;
        }

        public LocalSession session() {
            return session;
        }

        /** The join succeeded and {@code carrier} carries it. False when the session ended meanwhile. */
        public boolean started(SessionLink carrier) {
            synchronized (session) {
                release();
                if (session.state != LocalSession.State.ACTIVE && session.state != LocalSession.State.DETACHED) {
                    return false;
                }
                link = carrier;
                session.watchers.put(carrier, watcher);
                ledger.watcherJoined(watched(session), watcher);
            }
            LOG.info("session {}: {} watching by share {} ({})", session.id(), watcher.name(), watcher.shareId(),
                    watcher.readOnly() ? "read-only" : "collaborative");
            return true;
        }

        /** The join failed before the watcher watched. */
        public void failed() {
            synchronized (session) {
                release();
            }
        }

        /** The watcher's tunnel ended; the session goes on. */
        public void ended(TunnelEnd end) {
            boolean gone;
            synchronized (session) {
                gone = link != null && session.watchers.remove(link) != null;
                if (gone && session.state != LocalSession.State.ENDED) {
                    ledger.watcherLeft(watched(session), watcher, end.message());
                }
            }
            if (gone) {
                LOG.info("session {}: {} (share {}) stopped watching: {}", session.id(), watcher.name(),
                        watcher.shareId(), end.message());
            }
        }

        private void release() {
            if (!released) {
                released = true;
                session.watchersJoining--;
            }
        }
    }

    /**
     * Cuts everyone watching session {@code sessionId} by share {@code shareId} (revoked).
     *
     * @return how many were cut
     */
    public int cutWatchers(String sessionId, String shareId, String reason) {
        LocalSession session = sessions.get(sessionId);
        if (session == null) {
            return 0;
        }
        List<SessionLink> cut = new java.util.ArrayList<>();
        synchronized (session) {
            session.watchers.forEach((link, watcher) -> {
                if (watcher.shareId().equals(shareId)) {
                    cut.add(link);
                }
            });
        }
        cut.forEach(link -> link.terminate(GuacamoleStatus.CLIENT_FORBIDDEN, reason));
        return cut.size();
    }

    /** The session's record with its watchers as they are now; called under its lock. */
    private static SessionInfo watched(LocalSession session) {
        session.info = session.info.watchedBy(List.copyOf(session.watchers.values()));
        return session.info;
    }

    /** Ends every watcher of a session that has ended; called outside its lock. */
    private static void endWatchers(List<SessionLink> watchers, String reason) {
        watchers.forEach(link -> link.terminate(GuacamoleStatus.SESSION_CLOSED, reason));
    }

    /**
     * The handshake succeeded: the tunnel takes over. False when the session ended meanwhile (deleted).
     *
     * @param connectionId guacd's id of the connection, from its {@code ready}
     */
    public boolean activate(LocalSession session, SessionLink tunnel, String connectionId) {
        SessionInfo info;
        synchronized (session) {
            if (session.state != LocalSession.State.ATTACHING) {
                return false;
            }
            boolean rejoined = session.anchor != null;
            session.state = LocalSession.State.ACTIVE;
            session.tunnel = tunnel;
            if (session.connectionId == null) {
                session.connectionId = connectionId;
            }
            session.info = session.info.attached();
            info = session.info;
            if (!rejoined) {
                long age = Duration.between(info.createdAt(), clock.instant()).toMillis();
                long left = Math.max(1, limits.maxDuration().toMillis() - age);
                session.durationTimer = vertx.setTimer(left, id -> terminate(session, GuacamoleStatus.SESSION_TIMEOUT,
                        "the session reached its maximum duration of " + limits.maxDuration().toSeconds() + " s"));
            }
            ledger.attached(info);
        }
        return true;
    }

    /** The held guacd connection ended (guacd closed it, failed, or the gateway let it go). */
    private void anchorEnded(LocalSession session, TunnelEnd end) {
        String reason;
        synchronized (session) {
            session.anchor = null;
            reason = session.terminationReason != null ? session.terminationReason : end.message();
        }
        finish(session, end.isError() ? SessionStatus.ERROR : SessionStatus.COMPLETED, reason, end);
    }

    /** No client for now: the session waits for one to come back, its guacd connection held by its anchor. */
    private void detach(LocalSession session, TunnelEnd end) {
        session.state = LocalSession.State.DETACHED;
        session.tunnel = null;
        session.info = session.info.detached();
        long grace = limits.reattachGrace().toMillis();
        session.graceTimer = vertx.setTimer(grace, id -> terminate(session, GuacamoleStatus.SESSION_TIMEOUT,
                "no client came back within " + limits.reattachGrace().toSeconds() + " s"));
        ledger.detached(session.info, end.message());
        LOG.info("session {} detached: {}; held {} s for its client to come back", session.id(), end.message(),
                limits.reattachGrace().toSeconds());
    }

    /** The handshake failed, or the client left before it finished. */
    public void attachFailed(LocalSession session, SessionStatus status, String reason) {
        finish(session, status, reason, null);
    }

    /**
     * The session's tunnel ended: the one place that decides whether the session waits for its client. It does when
     * the client went without a word, waiting is configured, and nothing is ending the session: the first time,
     * guacd's connection is kept ({@code hold}); a client that had joined the kept connection leaves it kept.
     */
    public void tunnelEnded(LocalSession session, TunnelEnd end, GuacdHold hold) {
        String reason;
        synchronized (session) {
            boolean waits = hold != null && !limits.reattachGrace().isZero()
                    && session.state == LocalSession.State.ACTIVE && session.connectionId != null
                    && session.terminationReason == null;
            if (waits) {
                if (session.anchor == null) {
                    session.anchor = hold.keep(anchorEnd -> anchorEnded(session, anchorEnd));
                }
                detach(session, end);
                return;
            }
            reason = session.terminationReason != null ? session.terminationReason : end.message();
        }
        finish(session, end.isError() ? SessionStatus.ERROR : SessionStatus.COMPLETED, reason, end);
    }

    /**
     * Deletes a session: its tunnel and guacd connection really end, and its record goes at once.
     *
     * @return false when there is no such session for this caller; true once its record left the directory
     */
    public Future<Boolean> delete(String sessionId, Identity who) {
        LocalSession session = sessions.get(sessionId);
        if (session == null || !mayUse(who, session.info())) {
            return Future.succeededFuture(false);
        }
        CompletionStage<Void> forgotten;
        Links links;
        synchronized (session) {
            boolean wasLive = session.state != LocalSession.State.ENDED;
            links = end(session);
            sessions.remove(session.id(), session);
            forgotten = ledger.deleted(session.info, wasLive, who.name());
        }
        links.terminate("the session was deleted", "the session was deleted");
        wakeIfIdle();
        // Answered once the record is gone, so that whoever deleted reads 404 next, on any node.
        return Stages.await(vertx, forgotten).otherwiseEmpty().map(true);
    }

    /** Active sessions by protocol, and what {@code model} charges for them: the calibrator's input. */
    public record Usage(Map<Protocol, Integer> sessions, long chargedMb) {
    }

    public Usage activeUsage(CostModel model) {
        Map<Protocol, Integer> counts = new EnumMap<>(Protocol.class);
        long charged = 0;
        for (LocalSession session : sessions.values()) {
            synchronized (session) {
                if (session.state == LocalSession.State.ACTIVE || session.state == LocalSession.State.DETACHED) {
                    SessionSpec spec = session.spec();
                    counts.merge(spec.protocol(), 1, Integer::sum);
                    charged += model.estimateMb(spec.protocol(), spec.display());
                }
            }
        }
        return new Usage(counts, charged + model.protocolsMb(counts::containsKey));
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

    /**
     * This node rejoined the cluster (after a split or a pause) still holding its sessions: each live one has its
     * record and quota place written again ({@link SessionLedger#reasserted}), under its lock, so that a session
     * ending meanwhile is not given a place again after it gave its own back.
     */
    public void reassertAll() {
        for (LocalSession session : sessions.values()) {
            synchronized (session) {
                if (session.state != LocalSession.State.ENDED) {
                    ledger.reasserted(session.info);
                }
            }
        }
    }

    /** When the session's first record was written (at once for a session unknown here). */
    public CompletionStage<Void> published(String sessionId) {
        LocalSession session = sessions.get(sessionId);
        if (session == null) {
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }
        synchronized (session) {
            return session.published;
        }
    }

    public LocalSession local(String sessionId) {
        return sessions.get(sessionId);
    }

    public List<LocalSession> live() {
        return sessions.values().stream().filter(s -> s.info().status().isLive()).toList();
    }

    /**
     * Completes with true once this node holds no live session, or with false after {@code patience}: woken by the
     * session that ends last, never by polling.
     */
    public Future<Boolean> whenIdle(Duration patience) {
        Promise<Boolean> idle = Promise.promise();
        idleWaiters.add(idle);
        long timer = vertx.setTimer(Math.max(1, patience.toMillis()), id -> idle.tryComplete(false));
        idle.future().onComplete(ignored -> {
            idleWaiters.remove(idle);
            vertx.cancelTimer(timer);
        });
        wakeIfIdle();
        return idle.future();
    }

    private void wakeIfIdle() {
        if (!idleWaiters.isEmpty() && live().isEmpty()) {
            idleWaiters.forEach(waiter -> waiter.tryComplete(true));
        }
    }

    /** Tells every attached client something (a shutdown notice). */
    public void tellAll(String instruction) {
        for (LocalSession session : sessions.values()) {
            List<SessionLink> clients = new java.util.ArrayList<>();
            synchronized (session) {
                if (session.tunnel != null) {
                    clients.add(session.tunnel);
                }
                clients.addAll(session.watchers.keySet());
            }
            clients.forEach(client -> client.tell(instruction));
        }
    }

    /** Ends every tunnel, for shutdown. */
    public void terminateAll(GuacamoleStatus status, String reason) {
        sessions.values().forEach(session -> terminate(session, status, reason));
    }

    public static boolean mayUse(Identity who, SessionInfo info) {
        return who.isAdmin() || who.id().equals(info.ownerId());
    }

    /** Whether {@code who} may attach a WebSocket to the session: as {@link #mayUse} says, or by one of its links. */
    public static boolean mayAttach(Identity who, SessionInfo info) {
        return who.share() != null ? who.share().sessionId().equals(info.sessionId()) : mayUse(who, info);
    }

    private void terminate(LocalSession session, GuacamoleStatus status, String reason) {
        SessionLink tunnel;
        SessionLink anchor;
        synchronized (session) {
            tunnel = session.tunnel;
            anchor = session.anchor;
            if (session.state == LocalSession.State.ENDED) {
                return;
            }
            session.terminationReason = reason;
        }
        if (tunnel != null) {
            tunnel.terminate(status, reason);
        }
        if (anchor != null) {
            anchor.terminate(status, reason); // its end finishes the session
        } else if (tunnel == null) {
            // no connection to end: the end is the gateway's, which history tells apart from a user's (drained)
            finish(session, SessionStatus.COMPLETED, reason, new TunnelEnd(TunnelEnd.Cause.TERMINATED, status.code(),
                    reason, 0, 0, 0, 0));
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
        Links links;
        synchronized (session) {
            if (session.state == LocalSession.State.ENDED) {
                return; // deleted, or already finished by whichever end came first
            }
            links = end(session);
            session.info = session.info.ended(status, clock.instant(), reason);
            ledger.ended(session.info, end);
        }
        // The tunnel that ended it, if any, has ended already; an anchor left is e.g. that of a join that failed.
        links.terminate(reason, "the session has ended: " + reason);
        wakeIfIdle();
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
            ledger.forget(session.info());
        }
    }

    /** What carried an ended session's traffic, to be ended outside its lock. */
    private record Links(SessionLink tunnel, SessionLink anchor, List<SessionLink> watchers) {

        void terminate(String reason, String watchersReason) {
            if (tunnel != null) {
                tunnel.terminate(GuacamoleStatus.SESSION_CLOSED, reason);
            }
            if (anchor != null) {
                anchor.terminate(GuacamoleStatus.SESSION_CLOSED, reason);
            }
            endWatchers(watchers, watchersReason);
        }
    }

    /** The session is over, whoever ended it: no timer, no link; called under its lock. */
    private Links end(LocalSession session) {
        Links links = new Links(session.tunnel, session.anchor, List.copyOf(session.watchers.keySet()));
        session.state = LocalSession.State.ENDED;
        session.watchers.clear();
        session.tunnel = null;
        session.anchor = null;
        cancelTimer(session.pendingTimer);
        cancelTimer(session.durationTimer);
        cancelTimer(session.graceTimer);
        return links;
    }

    private void cancelTimer(long timer) {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
    }
}
