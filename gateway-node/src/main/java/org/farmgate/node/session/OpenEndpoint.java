package org.farmgate.node.session;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.GatewayException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.NotFoundException;
import org.farmgate.error.OutcomeUnknownException;
import org.farmgate.error.UnavailableException;
import org.farmgate.model.Json;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.model.addressbook.CredentialVariables;
import org.farmgate.node.async.Stages;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.config.UserLimits;
import org.farmgate.node.hostkey.HostKeyTrust;
import org.farmgate.node.jump.JumpHosts;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.node.target.ArgumentPolicy;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.addressbook.AddressBookException;
import org.farmgate.router.addressbook.AddressBookSource;
import org.farmgate.router.store.Voucher;

/**
 * Both ends of the request that opens a placed session on its node, and of the one that deletes it there: the
 * placing node sends them ({@link #open}, {@link #deleteThere}), the owner serves them ({@link #serve}). The owner
 * checks a peer's request again as if it came from anywhere, since one broken path must not open every door.
 */
public final class OpenEndpoint {

    static final String OPEN = "open";
    /** The header an open request carries its quota place's voucher in, beside the body ({@link #openForPeer}). */
    static final String PLACE_VOUCHER = "farmgate-place-voucher";
    static final String DELETE = "delete";
    /** Tries of an open request whose answer is late: one more, then the caller hears the outcome is unknown. */
    private static final int OPEN_ATTEMPTS = 2;

    /**
     * What the placing node sends the owner. For an ad-hoc session the spec carries the caller's credentials;
     * for an address-book entry it carries none: the owner reads the entry from the source itself, and only what
     * the user typed at connect time ({@code overrides}) travels.
     */
    record OpenRequest(@JsonProperty("session_id") String sessionId, @JsonProperty("creator") Identity creator,
            @JsonProperty("spec") SessionSpec spec, @JsonProperty("target") String target,
            @JsonProperty("charged_mb") int chargedMb, @JsonProperty("origin") Origin origin,
            @JsonProperty("overrides") Map<String, String> overrides) {

        OpenRequest {
            origin = origin == null ? Origin.UNKNOWN : origin;
        }

        OpenRequest charged(int mb) {
            return new OpenRequest(sessionId, creator, spec, target, mb, origin, overrides);
        }

        EntryRef entry() {
            return origin.entry();
        }

        @Override
        public String toString() {
            return "OpenRequest[" + sessionId + ", " + spec + "]";
        }
    }

    record DeleteRequest(@JsonProperty("session_id") String sessionId, @JsonProperty("caller") Identity caller) {
    }

    private final Vertx vertx;
    private final String nodeId;
    private final SessionTargets targets;
    private final UserLimits userLimits;
    private final SessionHost host;
    private final SessionQuota quota;
    private final JumpHosts jumps;
    private final SessionDrives drives;
    private final NodeMessenger messenger;
    private AddressBookSource addressBook;

    public OpenEndpoint(Vertx vertx, String nodeId, SessionTargets targets, UserLimits userLimits, SessionHost host,
            SessionQuota quota, SessionDrives drives, JumpHosts jumps, NodeMessenger messenger) {
        this.jumps = jumps;
        this.vertx = vertx;
        this.nodeId = nodeId;
        this.targets = targets;
        this.userLimits = userLimits;
        this.host = host;
        this.quota = quota;
        this.drives = drives;
        this.messenger = messenger;
    }

    /** Where sessions from the address book read their entries (null: none configured). */
    public void addressBook(AddressBookSource source) {
        this.addressBook = source;
    }

    /** Answers the other nodes' open and delete requests for sessions placed on this node. */
    public void serve() {
        messenger.serve(nodeId, OPEN, OpenRequest.class, (request, headers) -> openForPeer(request,
                voucher(headers.get(PLACE_VOUCHER))));
        messenger.serve(nodeId, DELETE, DeleteRequest.class,
                request -> host.delete(request.sessionId(), request.caller()));
    }

    /**
     * Opens the placed session on {@code owner}: here, or there, asking again while the owner's answer is late. The
     * voucher of the session's quota place, when its entry's owner gave one, goes with the request, so that the
     * session's node need not read the entry.
     */
    Future<SessionInfo> open(String owner, OpenRequest request, Voucher place) {
        if (owner.equals(nodeId)) {
            return openHere(request);
        }
        Map<String, String> headers;
        try {
            headers = place == null ? Map.of() : Map.of(PLACE_VOUCHER, Json.mapper().writeValueAsString(place));
        } catch (JsonProcessingException e) {
            return Future.failedFuture(e);
        }
        return openThere(owner, request, headers, OPEN_ATTEMPTS);
    }

    private Future<SessionInfo> openThere(String owner, OpenRequest request, Map<String, String> headers,
            int attempts) {
        return messenger.request(owner, OPEN, request, headers, SessionInfo.class).recover(error ->
                error instanceof OutcomeUnknownException && attempts > 1
                        ? openThere(owner, request, headers, attempts - 1) : Future.failedFuture(error));
    }

    /** The voucher a header carries; none when there is no header, or it does not read as one. */
    private static Voucher voucher(String header) {
        if (header == null) {
            return null;
        }
        try {
            return Json.mapper().readValue(header, Voucher.class);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** Deletes a session on the node that holds it; true when it was found there. */
    Future<Boolean> deleteThere(String owner, String sessionId, Identity caller) {
        return messenger.request(owner, DELETE, new DeleteRequest(sessionId, caller), Boolean.class);
    }

    /**
     * A peer's open request: besides the rules {@link #openHere} checks again, the session must hold one of its
     * creator's quota places, which the placing node takes before it sends the request: shown by the voucher the
     * place's owner gave, or else read from the quota entry. A request that skipped the quota (from a broken path)
     * opens nothing.
     */
    private Future<SessionInfo> openForPeer(OpenRequest request, Voucher place) {
        try {
            recheck(request);
        } catch (GatewayException refused) {
            return Future.failedFuture(refused);
        }
        return Stages.await(vertx, quota.holds(request.creator().id(), request.sessionId(), place)).compose(held -> held
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
                return openAt(request, request.spec(), targets.checkedHere(request.spec(), request.target(),
                        nodeId));
            }
        } catch (GatewayException refused) {
            return Future.failedFuture(refused);
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
            stored = withPersonalValues(stored, request.creator());
            SessionSpec spec = HostKeyTrust.carried(EntrySpecs.fromStored(stored, request.spec().display(),
                    request.overrides()), request.spec());
            drives.check(spec, nodeId);
            return spec;
        }, false)
                .compose(spec -> targets.resolveChecked(spec).compose(addresses -> openAt(request, spec,
                        addresses.get(0))));
    }

    /**
     * The entry with its credential variables replaced by the creator's own values, read here from the store and
     * nowhere else: they never travel between nodes or into a cluster map. Blocks (on a worker).
     */
    private Map<String, Object> withPersonalValues(Map<String, Object> stored, Identity creator)
            throws AddressBookException {
        List<String> needed = CredentialVariables.referenced(stored);
        if (needed.isEmpty()) {
            return stored;
        }
        if (creator.email() == null) {
            throw CredentialVariables.missingError(needed);
        }
        return CredentialVariables.resolve(stored, addressBook.readPersonal(creator.email()));
    }

    /**
     * Opens the session with guacd connecting to {@code first}, the checked target; or, behind jump hosts, to the end
     * of the chain this node opens through them, first hop at {@code first} (on a worker: it blocks), closed again if
     * the session then does not open.
     */
    private Future<SessionInfo> openAt(OpenRequest request, SessionSpec spec, InetAddress first) {
        if (spec.jumpHosts().isEmpty()) {
            return opened(request, spec, new InetSocketAddress(first, spec.port()));
        }
        String client = request.origin().clientAddress();
        return vertx.executeBlocking(() -> jumps.open(request.sessionId(), spec, first, request.creator(), client),
                false).compose(chain -> {
                    try {
                        return opened(request, chain.spec(), chain.local());
                    } catch (RuntimeException e) {
                        jumps.closeChain(request.sessionId());
                        throw e;
                    }
                });
    }

    /**
     * Opens the session here and answers once its record is written: a caller told "created" may then find it, or
     * delete it, through any node.
     */
    private Future<SessionInfo> opened(OpenRequest request, SessionSpec spec, InetSocketAddress target) {
        SessionInfo info = host.open(request.sessionId(), request.creator(), spec, target, request.chargedMb(),
                request.origin());
        return Stages.await(vertx, host.published(request.sessionId())).map(ignored -> info);
    }

    /**
     * What the API checked on the placing node, checked again here: the creator's role must allow the kind of
     * session, and no guacd argument may be one the gateway refuses or one the protocol does not have.
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
}
