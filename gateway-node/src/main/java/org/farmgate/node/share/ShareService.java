package org.farmgate.node.share;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.SessionClosedException;
import org.farmgate.error.TooManyException;
import org.farmgate.error.UnauthorizedException;
import org.farmgate.model.SessionInfo;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.auth.Secrets;
import org.farmgate.node.auth.ShareCheck;
import org.farmgate.node.auth.TicketService;
import org.farmgate.node.config.ShareSettings;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.node.session.SessionHost;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Share links, cluster-wide: a session's owner (or an admin, to shadow it) makes an expiring link, read-only or
 * collaborative; whoever holds it trades it for a WebSocket ticket on any node and joins the session's guacd
 * connection on the node that holds it. A link is a cluster record with a time to live, sealed like every shared
 * record, so a link works through any node and dies by itself; revoking it removes the record and has the session's
 * node cut everyone who came by it.
 *
 * <p>The link is checked three times, each where it matters: when traded for a ticket (known, unexpired, its session
 * live), when the ticket is redeemed (the ticket is single-use and 30 s), and on the session's node just before guacd
 * sees the watcher ({@link #stands}), so that a link revoked in between lets no one in.
 */
public final class ShareService implements ShareCheck {

    private static final Logger LOG = LoggerFactory.getLogger(ShareService.class);
    static final String UNSHARE = "unshare";

    /** A link just made: its record, and its token, which is never shown again. */
    public record Issued(Share share, String token) {
    }

    /** What someone holding a link gets: a ticket for the session's WebSocket, and what they are about to see. */
    public record WatchTicket(String ticket, Share share, SessionInfo session) {
    }

    record UnshareRequest(@JsonProperty("session_id") String sessionId, @JsonProperty("share_id") String shareId) {
    }

    private final Vertx vertx;
    private final String nodeId;
    private final SharedMap<String, Share> shares;
    private final SessionDirectory directory;
    private final SessionHost host;
    private final TicketService tickets;
    private final NodeMessenger messenger;
    private final ShareSettings settings;
    private final Clock clock;

    public ShareService(Vertx vertx, String nodeId, SharedMap<String, Share> shares, SessionDirectory directory,
            SessionHost host, TicketService tickets, NodeMessenger messenger, ShareSettings settings, Clock clock) {
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.shares = shares;
        this.directory = directory;
        this.host = host;
        this.tickets = tickets;
        this.messenger = messenger;
        this.settings = settings;
        this.clock = clock;
    }

    public ShareSettings settings() {
        return settings;
    }

    /**
     * Answers another node's word that a link of a session here was revoked. The word is checked, not believed:
     * watchers are cut only when the link's record is really gone.
     */
    public void serve() {
        messenger.serve(nodeId, UNSHARE, UnshareRequest.class, request -> await(shares.get(request.shareId()))
                .map(share -> share != null && share.standsAt(clock.instant()) ? 0
                        : host.cutWatchers(request.sessionId(), request.shareId(), "the share link was revoked")));
    }

    public Future<Issued> create(Identity caller, String sessionId, boolean readOnly, Duration lifetime) {
        return session(caller, sessionId).compose(info -> {
            if (!info.status().isLive()) {
                return Future.failedFuture(new SessionClosedException("session " + sessionId + " has ended ("
                        + info.status().wireName() + ")"));
            }
            return standing(sessionId).compose(existing -> {
                if (existing.size() >= settings.maxPerSession()) {
                    return Future.failedFuture(new TooManyException("session " + sessionId + " already has "
                            + existing.size() + " share links, the most allowed (GW_MAX_SHARES_PER_SESSION); "
                            + "revoke one first"));
                }
                String token = Secrets.newSecret(Share.TOKEN_PREFIX);
                String hash = Secrets.sha256Hex(token);
                Share share = new Share(Share.idOf(hash), sessionId, readOnly, caller.name(), caller.id(),
                        clock.instant(), clock.instant().plus(lifetime), hash);
                LOG.info("session {}: {} share link {} made by {}, valid {} s", sessionId, share.mode(),
                        share.shareId(), caller.name(), lifetime.toSeconds());
                return await(shares.set(share.shareId(), share, lifetime)).map(new Issued(share, token));
            });
        });
    }

    /** The session's standing links, oldest first. */
    public Future<List<Share>> list(Identity caller, String sessionId) {
        return session(caller, sessionId).compose(info -> standing(sessionId));
    }

    /**
     * Revokes a link: its record goes, then the session's node cuts whoever came by it.
     *
     * @return false when the session has no such link
     */
    public Future<Boolean> revoke(Identity caller, String sessionId, String shareId) {
        return session(caller, sessionId).compose(info -> await(shares.get(shareId)).compose(share -> {
            if (share == null || !share.sessionId().equals(sessionId)) {
                return Future.succeededFuture(false);
            }
            return await(shares.remove(shareId)).compose(removed -> cut(info, shareId)).map(cut -> {
                LOG.info("session {}: share link {} revoked by {}; {} watchers cut", sessionId, shareId,
                        caller.name(), cut);
                return true;
            });
        }));
    }

    /** Trades a link for a WebSocket ticket; {@code name} is what the session's owner will see. */
    public Future<WatchTicket> ticket(String token, String name) {
        if (token == null || !token.startsWith(Share.TOKEN_PREFIX)) {
            return Future.failedFuture(unknownLink());
        }
        String hash = Secrets.sha256Hex(token);
        return await(shares.get(Share.idOf(hash))).compose(share -> {
            if (share == null || !Secrets.constantTimeEquals(share.tokenHash(), hash)
                    || !share.standsAt(clock.instant())) {
                return Future.failedFuture(unknownLink());
            }
            return await(directory.find(share.sessionId())).compose(info -> {
                if (info == null || !info.status().isLive()) {
                    return Future.failedFuture(new SessionClosedException("the shared session has ended"));
                }
                Identity watcher = Identity.watcher(name, new Identity.ShareScope(share.shareId(),
                        share.sessionId(), share.readOnly()));
                return await(tickets.issue(watcher, null)).map(ticket -> new WatchTicket(ticket, share, info));
            });
        });
    }

    @Override
    public Future<Boolean> stands(Identity.ShareScope scope) {
        return await(shares.get(scope.shareId())).map(share -> share != null
                && share.sessionId().equals(scope.sessionId()) && share.standsAt(clock.instant()));
    }

    private Future<Integer> cut(SessionInfo info, String shareId) {
        if (info.nodeId().equals(nodeId)) {
            return Future.succeededFuture(host.cutWatchers(info.sessionId(), shareId, "the share link was revoked"));
        }
        if (!info.status().isLive()) {
            return Future.succeededFuture(0);
        }
        // Its watchers can only be on its node; a node out of reach cuts them when they next ask it for anything.
        return messenger.request(info.nodeId(), UNSHARE, new UnshareRequest(info.sessionId(), shareId), Integer.class)
                .recover(error -> {
                    LOG.warn("session {}: node {} did not confirm cutting the watchers of share {}: {}",
                            info.sessionId(), info.nodeId(), shareId, error.getMessage());
                    return Future.succeededFuture(0);
                });
    }

    private Future<List<Share>> standing(String sessionId) {
        return await(shares.query(new OfSession(sessionId))).map(found -> found.stream()
                .filter(share -> share.standsAt(clock.instant()))
                .sorted(Comparator.comparing(Share::createdAt)).toList());
    }

    /** A session the caller may share: its owner's, or any for an admin; other users' sessions do not exist. */
    private Future<SessionInfo> session(Identity caller, String sessionId) {
        return await(directory.find(sessionId)).compose(info -> info != null && SessionHost.mayUse(caller, info)
                ? Future.succeededFuture(info) : Future.failedFuture(new NotFoundException("no session "
                        + sessionId)));
    }

    private static UnauthorizedException unknownLink() {
        return new UnauthorizedException("the share link is unknown, revoked or expired");
    }

    private record OfSession(String sessionId) implements Query<Share, Share> {

        @Override
        public boolean matches(Share value) {
            return sessionId.equals(value.sessionId());
        }

        @Override
        public Share project(Share value) {
            return value;
        }
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
