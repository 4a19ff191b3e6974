package org.farmgate.node.session;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.GatewayException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.OutcomeUnknownException;
import org.farmgate.error.TooManyException;
import org.farmgate.error.UnavailableException;
import org.farmgate.model.CostModel;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.config.UserLimits;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.node.target.ArgumentPolicy;
import org.farmgate.node.target.HostName;
import org.farmgate.node.target.TargetPolicy;
import org.farmgate.router.NoCapacityException;
import org.farmgate.router.SessionDirectory;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.store.SharedStateUnavailableException;
import org.farmgate.router.SessionRouter;
import org.farmgate.router.addressbook.AddressBookSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the sessions API does, cluster-wide: check the target, have the router place and charge the session, hand
 * it to its node; read through the directory; delete on whichever node holds it.
 */
public final class SessionService {

    private static final Logger LOG = LoggerFactory.getLogger(SessionService.class);
    static final String OPEN = "open";
    static final String DELETE = "delete";
    /** Tries of an open request whose answer is late: one more, then the caller hears the outcome is unknown. */
    private static final int OPEN_ATTEMPTS = 2;

    /** An address-book entry a session is opened from. */
    public record EntryRef(@JsonProperty("scope") String scope, @JsonProperty("folder") String folder,
            @JsonProperty("name") String name) {
    }

    /**
     * What the placing node sends the owner. For an ad-hoc session the spec carries the caller's credentials;
     * for an address-book entry it carries none: the owner reads the entry from the source itself, and only what
     * the user typed at connect time ({@code overrides}) travels.
     */
    record OpenRequest(@JsonProperty("session_id") String sessionId, @JsonProperty("creator") Identity creator,
            @JsonProperty("spec") SessionSpec spec, @JsonProperty("target") String target,
            @JsonProperty("charged_mb") int chargedMb, @JsonProperty("entry") EntryRef entry,
            @JsonProperty("overrides") Map<String, String> overrides) {

        @Override
        public String toString() {
            return "OpenRequest[" + sessionId + ", " + spec + "]";
        }
    }

    record DeleteRequest(@JsonProperty("session_id") String sessionId, @JsonProperty("caller") Identity caller) {
    }

    private final Vertx vertx;
    private final String nodeId;
    private final TargetPolicy targets;
    private final UserLimits userLimits;
    private final CostModel costModel;
    private final SessionHost host;
    private final SessionDirectory directory;
    private final SessionRouter router;
    private final SessionQuota quota;
    private final SessionLedger ledger;
    private final NodeMessenger messenger;
    private final NodeMetrics metrics;
    private final SessionDrives drives;
    private AddressBookSource addressBook;

    public SessionService(Vertx vertx, String nodeId, TargetPolicy targets, UserLimits userLimits,
            CostModel costModel, SessionHost host,
            SessionDirectory directory, SessionRouter router, SessionQuota quota, SessionLedger ledger,
            NodeMessenger messenger, SessionDrives drives, NodeMetrics metrics) {
        this.drives = drives;
        this.ledger = ledger;
        this.metrics = metrics;
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.targets = targets;
        this.userLimits = userLimits;
        this.costModel = costModel;
        this.host = host;
        this.directory = directory;
        this.router = router;
        this.quota = quota;
        this.messenger = messenger;
    }

    /** Where sessions from the address book read their entries (null: none configured). */
    public void addressBook(AddressBookSource source) {
        this.addressBook = source;
    }

    /** Answers the other nodes' open and delete requests for sessions placed on this node. */
    public void serve() {
        messenger.serve(nodeId, OPEN, OpenRequest.class, this::openForPeer);
        messenger.serve(nodeId, DELETE, DeleteRequest.class,
                request -> host.delete(request.sessionId(), request.caller()));
    }

    /**
     * Checks the target, then at once takes one of the user's places and places the session (two independent
     * cluster updates, so neither waits for the other), and opens it on its node. Whatever is taken is given back
     * when a later step fails; the session's node gives both back when the session ends.
     */
    public Future<SessionInfo> create(Identity creator, SessionSpec spec) {
        return createPlaced(creator, spec, null, Map.of());
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
     * A session from an address-book entry; {@code publicSpec} is built from the entry's public view (for the
     * target check and the placement), the owner builds the real one from the stored entry.
     */
    public Future<SessionInfo> createFromEntry(Identity creator, EntryRef entry, SessionSpec publicSpec,
            Map<String, String> overrides) {
        return createPlaced(creator, publicSpec, entry, overrides);
    }

    /**
     * The user's place is charged by this node's cost model, before the session's node is known (the two updates
     * run at once); nodes of one cluster share a model, and the node's own charge is what its registry entry holds.
     */
    private Future<SessionInfo> createPlaced(Identity creator, SessionSpec asked, EntryRef entry,
            Map<String, String> overrides) {
        SessionSpec spec = bounded(asked);
        return resolveChecked(spec).compose(addresses -> {
            String sessionId = UUID.randomUUID().toString();
            int chargeMb = costModel.estimateMb(spec.protocol(), spec.display());
            Future<SessionQuota.Grant> place = await(quota.tryAcquire(creator.id(), sessionId, chargeMb,
                    userLimits.quota()));
            Future<SessionRouter.Placement> placement = place(sessionId, spec, new HashSet<>());
            return Future.join(place, placement).transform(both -> {
                boolean granted = place.succeeded() && place.result() != null && place.result().granted();
                if (!granted) {
                    if (placement.succeeded()) {
                        router.release(placement.result().nodeId(), sessionId);
                    }
                    if (place.failed() && place.cause() instanceof SharedStateUnavailableException) {
                        rebuildPlaces(creator.id());
                    }
                    return Future.failedFuture(place.failed() ? place.cause() : place.result() == null
                            ? new UnavailableException("the cluster did not take this node's quota update")
                            : overLimit(creator, place.result(), chargeMb));
                }
                OpenRequest request = new OpenRequest(sessionId, creator, spec, addresses.get(0).getHostAddress(), 0,
                        entry, overrides);
                Future<SessionInfo> opened = placement.failed() ? Future.failedFuture(placement.cause())
                        : openOrMove(placement.result(), request, new HashSet<>());
                // A late answer may still become a session, which needs its place: the repair gives it back if not.
                return opened.recover(error -> error instanceof OutcomeUnknownException ? Future.failedFuture(error)
                        : await(quota.release(creator.id(), sessionId))
                                .transform(ignored -> Future.failedFuture(error)));
            });
        });
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
        return display.equals(spec.display()) ? spec
                : new SessionSpec(spec.protocol(), spec.hostname(), spec.port(), display, spec.timezone(),
                        spec.parameters());
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
                        java.util.concurrent.TimeUnit.NANOSECONDS));
    }

    /**
     * Opens the placed session on its node. A node the request never reached gives its reservation back and is
     * skipped; the session goes to the next best node. A node that did not answer in time may have opened it: it is
     * asked once more (opening is idempotent by session id), and if it still does not answer the caller hears so,
     * and nothing is opened anywhere else. What such a session holds is given back by the node if it opened it (the
     * pending session expires), or by the repairs if it did not (its node gives up the unheld reservation, the
     * coordinator the quota place).
     */
    private Future<SessionInfo> openOrMove(SessionRouter.Placement placement, OpenRequest request,
            Set<String> excluded) {
        OpenRequest placed = new OpenRequest(request.sessionId(), request.creator(), request.spec(), request.target(),
                placement.chargedMb(), request.entry(), request.overrides());
        Future<SessionInfo> opened = placement.nodeId().equals(nodeId) ? openHere(placed)
                : openThere(placement.nodeId(), placed, OPEN_ATTEMPTS);
        return opened.recover(error -> {
            if (error instanceof OutcomeUnknownException) {
                LOG.warn("session {}: {}; it may still open there, and is not placed elsewhere",
                        request.sessionId(), error.getMessage());
                return Future.failedFuture(new OutcomeUnknownException(error.getMessage() + "; session "
                        + request.sessionId() + " may still open there"));
            }
            return await(router.release(placement.nodeId(), request.sessionId())).transform(released -> {
                if (error instanceof NodeMessenger.NodeUnreachableException) {
                    LOG.warn("session {}: {}; placing it elsewhere", request.sessionId(), error.getMessage());
                    excluded.add(placement.nodeId());
                    return place(request.sessionId(), request.spec(), excluded)
                            .compose(next -> openOrMove(next, request, excluded));
                }
                return Future.failedFuture(error);
            });
        });
    }

    /** Sends the open request, asking again while the owner's answer is late. */
    private Future<SessionInfo> openThere(String owner, OpenRequest request, int attempts) {
        return messenger.request(owner, OPEN, request, SessionInfo.class).recover(error ->
                error instanceof OutcomeUnknownException && attempts > 1 ? openThere(owner, request, attempts - 1)
                        : Future.failedFuture(error));
    }

    /**
     * A peer's open request: besides the rules {@link #openHere} checks again, the session must hold one of its
     * creator's quota places, which the placing node takes before it sends the request. A request that skipped the
     * quota (from a broken or hostile path) opens nothing.
     */
    private Future<SessionInfo> openForPeer(OpenRequest request) {
        try {
            recheck(request);
        } catch (GatewayException refused) {
            return Future.failedFuture(refused);
        }
        return await(quota.holds(request.creator().id(), request.sessionId())).compose(held -> held
                ? openHere(request)
                : Future.failedFuture(new ForbiddenException("session " + request.sessionId()
                        + " holds no quota place of '" + request.creator().name() + "'")));
    }

    /**
     * Opens a session placed on this node. The placing node resolved the name; this node checks the address
     * against its own allow-list, so a node with a narrower list never connects outside it. A session from the
     * address book is built from the entry this node reads from the source itself.
     */
    private Future<SessionInfo> openHere(OpenRequest request) {
        try {
            recheck(request);
            if (request.entry() == null) {
                drives.check(request.spec(), nodeId); // an entry's spec is checked once read, below
            }
        } catch (GatewayException refused) {
            return Future.failedFuture(refused);
        }
        if (request.entry() == null) {
            InetAddress target = literal(request.target());
            if (targets.firstOutside(request.spec().protocol(), List.of(target)) != null) {
                return Future.failedFuture(new InvalidRequestException("field 'hostname': " + request.spec().hostname()
                        + " resolves to " + request.target() + ", outside the networks node " + nodeId
                        + " allows for " + request.spec().protocol().wireName()));
            }
            return Future.succeededFuture(host.open(request.sessionId(), request.creator(), request.spec(), target,
                    request.chargedMb()));
        }
        if (addressBook == null) {
            return Future.failedFuture(new UnavailableException("node " + nodeId + " has no address book configured"));
        }
        EntryRef ref = request.entry();
        return vertx.executeBlocking(() -> {
            Map<String, Object> stored = addressBook.readEntry(ref.scope(), ref.folder(), ref.name());
            if (stored == null) {
                throw new NotFoundException("no entry '" + ref.name() + "' in folder '" + ref.folder() + "'");
            }
            SessionSpec spec = EntrySpecs.fromStored(stored, request.spec().display(), request.overrides());
            drives.check(spec, nodeId);
            return spec;
        }, false)
                .compose(spec -> resolveChecked(spec).map(addresses -> host.open(request.sessionId(),
                        request.creator(), spec, addresses.get(0), request.chargedMb())));
    }

    /**
     * What the API checked on the placing node, checked again here: the request may come from a peer, and one
     * broken path must not open every door. The creator's role must allow the kind of session, and no guacd argument
     * may be one the gateway refuses or one the protocol does not have.
     */
    private void recheck(OpenRequest request) {
        try {
            UUID.fromString(request.sessionId()); // it names the session's drive directory, among others
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new InvalidRequestException("session id '" + request.sessionId() + "' is not one this cluster makes");
        }
        Role needed = request.entry() == null ? Role.POWERUSER : Role.OPERATOR;
        if (request.creator() == null || request.creator().share() != null
                || !request.creator().role().atLeast(needed)) {
            throw new ForbiddenException("opening this session needs the " + needed.wireName() + " role");
        }
        SessionSpec spec = request.spec();
        if (!userLimits.bound(spec.display()).equals(spec.display())) {
            throw new InvalidRequestException("display " + spec.display().width() + "x" + spec.display().height()
                    + " is larger than the " + userLimits.maxWidth() + "x" + userLimits.maxHeight() + " allowed");
        }
        for (String argument : spec.parameters().keySet()) {
            if (ArgumentPolicy.isRefused(argument) || !spec.protocol().guacdArguments().contains(argument)) {
                throw new InvalidRequestException("guacd argument '" + argument + "' is not allowed for "
                        + spec.protocol().wireName() + " sessions");
            }
        }
        if (request.overrides() != null) {
            for (String field : request.overrides().keySet()) {
                if (!ArgumentPolicy.isOverridable(field)) {
                    throw new InvalidRequestException("field '" + field + "' cannot be given at connect time");
                }
            }
        }
    }

    public Future<List<SessionInfo>> list(Identity caller, boolean all) {
        if (all && !caller.isAdmin()) {
            throw new ForbiddenException("only admins may list everyone's sessions (all=true)");
        }
        return await(directory.list(all ? null : caller.id()));
    }

    /** A session the caller may see: other users' sessions do not exist for non-admins. */
    public Future<Optional<SessionInfo>> get(Identity caller, String sessionId) {
        return await(directory.find(sessionId)).map(info -> Optional.ofNullable(info)
                .filter(found -> SessionHost.mayUse(caller, found)));
    }

    /**
     * Deletes on the node that holds the session. The record of a session that already ended, or whose node cannot
     * be reached, is forgotten here.
     */
    public Future<Boolean> delete(Identity caller, String sessionId) {
        return get(caller, sessionId).compose(found -> {
            if (found.isEmpty()) {
                return Future.succeededFuture(false);
            }
            String owner = found.get().nodeId();
            if (owner.equals(nodeId)) {
                return host.delete(sessionId, caller);
            }
            if (!found.get().status().isLive()) {
                return await(ledger.forget(found.get())).map(true);
            }
            // A late answer is not a missing node: the session may still run there, so its record stays.
            return messenger.request(owner, DELETE, new DeleteRequest(sessionId, caller), Boolean.class)
                    .recover(error -> error instanceof NodeMessenger.NodeUnreachableException
                            ? await(ledger.forget(found.get())).map(true) : Future.failedFuture(error));
        });
    }

    /**
     * Resolves the target and checks every address against the protocol's allow-list. Name resolution blocks, so
     * it runs on a worker thread.
     */
    private Future<List<InetAddress>> resolveChecked(SessionSpec spec) {
        InetAddress literal;
        try {
            HostName.check("hostname", spec.hostname()); // an address-book entry's too
            literal = HostName.literal(spec.hostname());
            if (literal != null) {
                return Future.succeededFuture(checked(spec, List.of(literal)));
            }
        } catch (GatewayException e) {
            return Future.failedFuture(e);
        }
        return vertx.executeBlocking(() -> {
            List<InetAddress> addresses;
            try {
                addresses = Arrays.asList(InetAddress.getAllByName(spec.hostname()));
            } catch (UnknownHostException e) {
                throw new InvalidRequestException("field 'hostname': " + spec.hostname() + " does not resolve");
            }
            return checked(spec, addresses);
        }, false);
    }

    private List<InetAddress> checked(SessionSpec spec, List<InetAddress> addresses) {
        InetAddress outside = targets.firstOutside(spec.protocol(), addresses);
        if (outside != null) {
            throw new InvalidRequestException("field 'hostname': " + spec.hostname() + " resolves to "
                    + outside.getHostAddress() + ", outside the networks allowed for " + spec.protocol().wireName()
                    + " (" + targets.allowedNetworks(spec.protocol()) + ")");
        }
        return addresses;
    }

    private static InetAddress literal(String address) {
        InetAddress literal = HostName.literal(address);
        if (literal == null) {
            throw new InvalidRequestException("unreadable target address " + address);
        }
        return literal;
    }

    private <T> Future<T> await(CompletionStage<T> stage) {
        return Stages.await(vertx, stage);
    }
}
