package org.farmgate.node.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.farmgate.error.ForbiddenException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Json;
import org.farmgate.model.Protocol;
import org.farmgate.model.Role;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.TestCluster;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.peer.NodeMessenger;
import org.farmgate.router.SessionQuota;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A node re-checks what a peer asks of it as the API would: an open request that reaches node 2 over the event bus
 * (as from a compromised node 1) with a role too low, a guacd argument the API refuses, or no place in its
 * creator's quota, is refused there, and no session is opened.
 */
class PeerRequestRecheckTest {

    private static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(2, n -> Map.of());
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    void aGuacdArgumentTheApiRefusesIsRefusedByTheOwner() {
        Throwable error = open(new Identity("tok_mallory", "mallory", Role.ADMIN, Set.of()),
                Map.of("username", "u", "recording-path", "/etc/cron.d"));
        assertInstanceOf(InvalidRequestException.class, error);
        assertTrue(error.getMessage().contains("recording-path"), error.getMessage());
        assertEquals(0, cluster.node(2).node.sessions().live().size());
    }

    @Test
    void aSessionIdThatIsNotOursIsRefusedByTheOwner() {
        OpenEndpoint.OpenRequest good = request(new Identity("tok_m", "m", Role.ADMIN, Set.of()), Map.of());
        Throwable error = open(new OpenEndpoint.OpenRequest("../../etc", good.creator(), good.spec(),
                good.target(), 17, null, Map.of()));
        assertInstanceOf(InvalidRequestException.class, error);
        assertTrue(error.getMessage().contains("not one this cluster makes"), error.getMessage());
    }

    @Test
    void someoneWithAShareLinkOpensNothing() {
        Identity watcher = Identity.watcher("bob", new Identity.ShareScope("shr_0", UUID.randomUUID().toString(),
                false));
        assertInstanceOf(ForbiddenException.class, open(watcher, Map.of("username", "u")));
        assertEquals(0, cluster.node(2).node.sessions().live().size());
    }

    @Test
    void aRoleTooLowIsRefusedByTheOwner() {
        Throwable error = open(new Identity("tok_viewer", "viewer", Role.VIEWER, Set.of()), Map.of("username", "u"));
        assertInstanceOf(ForbiddenException.class, error);
        assertEquals(0, cluster.node(2).node.sessions().live().size());
    }

    @Test
    void aRequestThatTookNoQuotaPlaceIsRefusedByTheOwner() {
        Throwable error = open(new Identity("tok_greedy", "greedy", Role.POWERUSER, Set.of()), Map.of("username", "u"));
        assertInstanceOf(ForbiddenException.class, error);
        assertTrue(error.getMessage().contains("quota"), error.getMessage());
        assertEquals(0, cluster.node(2).node.sessions().live().size());
    }

    @Test
    void aProperRequestOpensAndItsEndGivesThePlaceBack() throws Exception {
        OpenEndpoint.OpenRequest request = request(new Identity("tok_ok", "ok", Role.POWERUSER, Set.of()),
                Map.of("username", "u"));
        SessionQuota quota = new SessionQuota(cluster.node(1).node.runtime().userSessions());
        assertTrue(quota.tryAcquire("tok_ok", request.sessionId(), 17, new SessionQuota.Limits(5, 1000))
                .toCompletableFuture().get(10, TimeUnit.SECONDS).granted());
        SessionInfo info = messenger().request("node-2", OpenEndpoint.OPEN, request, SessionInfo.class)
                .await(10, TimeUnit.SECONDS);
        assertEquals("node-2", info.nodeId());
        assertTrue(cluster.node(2).node.sessions().delete(info.sessionId(), new Identity("tok_ok", "ok", Role.ADMIN,
                Set.of())).await(10, TimeUnit.SECONDS));
        Awaitility.await().atMost(10, TimeUnit.SECONDS).until(() -> !quota.holds("tok_ok", request.sessionId())
                .toCompletableFuture().get());
    }

    /**
     * The voucher of a place stands for its grant once on a node, without the entry read: shown after the place was
     * given back it still opens the session; shown again it is spent, the entry is read, and nothing opens.
     */
    @Test
    void aPlacesVoucherIsBelievedOnceThenTheEntryIsRead() throws Exception {
        Identity creator = new Identity("tok_vouched", "vouched", Role.POWERUSER, Set.of());
        OpenEndpoint.OpenRequest request = request(creator, Map.of("username", "u"));
        SessionQuota quota = new SessionQuota(cluster.node(1).node.runtime().userSessions());
        SessionQuota.Grant grant = quota.tryAcquire(creator.id(), request.sessionId(), 17,
                new SessionQuota.Limits(5, 1000)).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertNotNull(grant.voucher(), "the place's owner vouched for it");
        assertTrue(quota.release(creator.id(), request.sessionId()).toCompletableFuture().get(10, TimeUnit.SECONDS));
        Map<String, String> vouched = Map.of(OpenEndpoint.PLACE_VOUCHER, Json.mapper().writeValueAsString(
                grant.voucher()));

        SessionInfo info = messenger().request("node-2", OpenEndpoint.OPEN, request, vouched, SessionInfo.class)
                .await(10, TimeUnit.SECONDS);
        assertEquals("node-2", info.nodeId(), "believed without reading the entry, where the place is gone");
        assertTrue(cluster.node(2).node.sessions().delete(info.sessionId(), creator).await(10, TimeUnit.SECONDS));

        Throwable again = open(request, vouched);
        assertInstanceOf(ForbiddenException.class, again, "the voucher was spent: the entry was read");
        assertTrue(again.getMessage().contains("quota"), again.getMessage());
        assertEquals(0, cluster.node(2).node.sessions().live().size());
    }

    @Test
    void anotherSessionsVoucherOpensNothing() throws Exception {
        Identity creator = new Identity("tok_borrower", "borrower", Role.POWERUSER, Set.of());
        OpenEndpoint.OpenRequest granted = request(creator, Map.of("username", "u"));
        SessionQuota.Grant grant = new SessionQuota(cluster.node(1).node.runtime().userSessions())
                .tryAcquire(creator.id(), granted.sessionId(), 17, new SessionQuota.Limits(5, 1000))
                .toCompletableFuture().get(10, TimeUnit.SECONDS);
        Map<String, String> borrowed = Map.of(OpenEndpoint.PLACE_VOUCHER, Json.mapper().writeValueAsString(
                grant.voucher()));
        assertInstanceOf(ForbiddenException.class, open(request(creator, Map.of("username", "u")), borrowed));
        assertInstanceOf(ForbiddenException.class, open(request(creator, Map.of("username", "u")),
                Map.of(OpenEndpoint.PLACE_VOUCHER, "{not a voucher")));
        assertEquals(0, cluster.node(2).node.sessions().live().size());
    }

    private static Throwable open(Identity creator, Map<String, String> parameters) {
        return open(request(creator, parameters));
    }

    private static Throwable open(OpenEndpoint.OpenRequest request) {
        return open(request, Map.of());
    }

    private static Throwable open(OpenEndpoint.OpenRequest request, Map<String, String> headers) {
        try {
            messenger().request("node-2", OpenEndpoint.OPEN, request, headers, SessionInfo.class)
                    .await(10, TimeUnit.SECONDS);
        } catch (Throwable e) {
            return e;
        }
        throw new AssertionError("node 2 opened the session");
    }

    private static OpenEndpoint.OpenRequest request(Identity creator, Map<String, String> parameters) {
        SessionSpec spec = new SessionSpec(Protocol.SSH, "127.0.0.1", 22, DisplaySize.DEFAULT, null, parameters);
        return new OpenEndpoint.OpenRequest(UUID.randomUUID().toString(), creator, spec, "127.0.0.1", 17, null,
                Map.of());
    }

    private static NodeMessenger messenger() {
        return new NodeMessenger(cluster.node(1).node.runtime().vertx(), 10_000);
    }
}
