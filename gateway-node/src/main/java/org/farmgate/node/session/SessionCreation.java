package org.farmgate.node.session;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.OutcomeUnknownException;
import org.farmgate.error.TooManyException;
import org.farmgate.error.UnavailableException;
import org.farmgate.model.CostModel;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.config.UserLimits;
import org.farmgate.node.hostkey.HostKeyTrust;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.router.NoCapacityException;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.SessionRouter;
import org.farmgate.router.registry.NodeRegistry;
import org.farmgate.router.store.SharedStateUnavailableException;
import org.farmgate.router.store.Voucher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creating a session, cluster-wide: check the target and settle the SSH host key it must show, take one of the
 * creator's quota places and have the router place and charge the session (two independent cluster updates, run at
 * once), then open it on its node, showing there the voucher of the place's owner so that the node need not read
 * the quota entry. Whatever is taken is given back when a later step fails; the session's node gives both back when
 * the session ends.
 */
public final class SessionCreation {

    private static final Logger LOG = LoggerFactory.getLogger(SessionCreation.class);

    private final Vertx vertx;
    private final SessionTargets targets;
    private final HostKeyTrust hostKeys;
    private final UserLimits userLimits;
    private final CostModel costModel;
    private final SessionRouter router;
    private final NodeRegistry registry;
    private final SessionQuota quota;
    private final SessionDirectory directory;
    private final OpenEndpoint endpoint;
    private final NodeMetrics metrics;
    private final Supplier<String> refusal;

    /**
     * @param refusal why no new session may start now (an audit log or recordings the site requires cannot be kept),
     *     or null
     */
    public SessionCreation(Vertx vertx, SessionTargets targets, HostKeyTrust hostKeys, UserLimits userLimits,
            CostModel costModel, SessionRouter router, NodeRegistry registry, SessionQuota quota,
            SessionDirectory directory, OpenEndpoint endpoint, NodeMetrics metrics, Supplier<String> refusal) {
        this.hostKeys = hostKeys;
        this.refusal = refusal;
        this.vertx = vertx;
        this.targets = targets;
        this.userLimits = userLimits;
        this.costModel = costModel;
        this.router = router;
        this.registry = registry;
        this.quota = quota;
        this.directory = directory;
        this.endpoint = endpoint;
        this.metrics = metrics;
    }

    /** An ad-hoc session, its credentials in {@code spec}. */
    public Future<SessionInfo> create(Identity creator, SessionSpec spec, Origin origin) {
        return createPlaced(creator, spec, origin, Map.of());
    }

    /**
     * A session from an address-book entry; {@code publicSpec} is built from the entry's public view (for the
     * target check and the placement), the owner builds the real one from the stored entry.
     */
    public Future<SessionInfo> createFromEntry(Identity creator, SessionSpec publicSpec, Map<String, String> overrides,
            Origin origin) {
        return createPlaced(creator, publicSpec, origin, overrides);
    }

    /** How a create request ended, as the metrics count it. */
    public static String outcome(Throwable error) {
        if (error == null) {
            return "created";
        }
        if (error instanceof NoCapacityException) {
            return "no_capacity";
        }
        if (error instanceof TooManyException) {
            return "over_user_limit";
        }
        if (error instanceof InvalidRequestException) {
            return "invalid";
        }
        return "failed";
    }

    /**
     * The user's place is charged by this node's cost model, before the session's node is known (the two updates
     * run at once); nodes of one cluster share a model, and the node's own charge is what its registry entry holds.
     */
    private Future<SessionInfo> createPlaced(Identity creator, SessionSpec asked, Origin origin,
            Map<String, String> overrides) {
        String refused = refusal.get();
        if (refused != null) {
            return Future.failedFuture(new UnavailableException(refused));
        }
        SessionSpec bounded = bounded(asked);
        String sessionId = UUID.randomUUID().toString();
        return targets.resolveChecked(bounded).compose(addresses -> hostKeys.settle(bounded, addresses.get(0),
                creator, sessionId, origin.clientAddress()).compose(spec -> {
            int chargeMb = costModel.estimateMb(spec.protocol(), spec.display());
            Future<SessionQuota.Grant> place = await(quota.tryAcquire(creator.id(), sessionId, chargeMb,
                    userLimits.quota()));
            Future<SessionRouter.Placement> placement = place(sessionId, spec, new HashSet<>());
            return Future.join(place, placement).transform(both -> {
                boolean granted = place.succeeded() && place.result() != null && place.result().granted();
                if (!granted) {
                    if (placement.succeeded()) {
                        registry.release(placement.result().nodeId(), sessionId);
                    }
                    if (place.failed() && place.cause() instanceof SharedStateUnavailableException) {
                        rebuildPlaces(creator.id());
                    }
                    return Future.failedFuture(place.failed() ? place.cause() : place.result() == null
                            ? new UnavailableException("the cluster did not take this node's quota update")
                            : overLimit(creator, place.result(), chargeMb));
                }
                OpenEndpoint.OpenRequest request = new OpenEndpoint.OpenRequest(sessionId, creator, spec,
                        addresses.get(0).getHostAddress(), 0, origin, overrides);
                Future<SessionInfo> opened = placement.failed() ? Future.failedFuture(placement.cause())
                        : openOrMove(placement.result(), request, place.result().voucher(), new HashSet<>());
                // A late answer may still become a session, which needs its place: the repair gives it back if not.
                return opened.recover(error -> error instanceof OutcomeUnknownException ? Future.failedFuture(error)
                        : await(quota.release(creator.id(), sessionId))
                                .transform(ignored -> Future.failedFuture(error)));
            });
        }));
    }

    /**
     * The user's quota entry could not be trusted (an old copy put back, or deleted since a write this node knows
     * of): it is written again from the sessions the directory holds for the user, so that the next create is
     * decided on the truth. The create that found it answers 503 meanwhile.
     */
    private void rebuildPlaces(String user) {
        await(directory.list(user)).compose(sessions -> {
            Map<String, Integer> held = new HashMap<>();
            sessions.stream().filter(info -> info.endedAt() == null)
                    .forEach(info -> held.put(info.sessionId(), info.estimatedMemoryMb()));
            return await(quota.rebuild(user, held));
        }).onSuccess(places -> LOG.warn("the quota entry of user {} was not trusted; written again with the {} "
                + "sessions the directory holds", user, places))
                .onFailure(e -> LOG.warn("could not write the quota entry of user {} again: {}", user,
                        e.getMessage()));
    }

    private SessionSpec bounded(SessionSpec spec) {
        DisplaySize display = userLimits.bound(spec.display());
        return display.equals(spec.display()) ? spec : spec.withDisplay(display);
    }

    private TooManyException overLimit(Identity creator, SessionQuota.Grant held, int chargeMb) {
        if (held.sessions() >= userLimits.sessions()) {
            return new TooManyException("'" + creator.name() + "' already has " + held.sessions()
                    + " pending or active sessions, the most allowed per user");
        }
        return new TooManyException("'" + creator.name() + "' has " + held.reservedMb() + " MB reserved by pending "
                + "or active sessions; this one needs " + chargeMb + " MB more, over the " + userLimits.memoryMb()
                + " MB allowed per user (GW_MAX_MEMORY_MB_PER_USER)");
    }

    private Future<SessionRouter.Placement> place(String sessionId, SessionSpec spec, Set<String> excluded) {
        long started = System.nanoTime();
        return await(router.place(sessionId, spec.protocol(), spec.display(), excluded))
                .onComplete(ignored -> metrics.placement().record(System.nanoTime() - started,
                        TimeUnit.NANOSECONDS));
    }

    /**
     * Opens the placed session on its node. A node the request never reached gives its reservation back and is
     * skipped; the session goes to the next best node. A node that did not answer in time may have opened it: it is
     * asked once more (opening is idempotent by session id), and if it still does not answer the caller hears so,
     * and nothing is opened anywhere else. What such a session holds is given back by the node if it opened it (the
     * pending session expires), or by the repairs if it did not (its node gives up the unheld reservation, the
     * coordinator the quota place).
     */
    private Future<SessionInfo> openOrMove(SessionRouter.Placement placement, OpenEndpoint.OpenRequest request,
            Voucher place, Set<String> excluded) {
        return endpoint.open(placement.nodeId(), request.charged(placement.chargedMb()), place).recover(error -> {
            if (error instanceof OutcomeUnknownException) {
                LOG.warn("session {}: {}; it may still open there, and is not placed elsewhere",
                        request.sessionId(), error.getMessage());
                return Future.failedFuture(new OutcomeUnknownException(error.getMessage() + "; session "
                        + request.sessionId() + " may still open there"));
            }
            return await(registry.release(placement.nodeId(), request.sessionId())).transform(released -> {
                if (error instanceof NodeMessenger.NodeUnreachableException) {
                    LOG.warn("session {}: {}; placing it elsewhere", request.sessionId(), error.getMessage());
                    excluded.add(placement.nodeId());
                    return place(request.sessionId(), request.spec(), excluded)
                            .compose(next -> openOrMove(next, request, place, excluded));
                }
                return Future.failedFuture(error);
            });
        });
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
