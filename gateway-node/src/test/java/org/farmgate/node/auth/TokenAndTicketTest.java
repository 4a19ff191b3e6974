package org.farmgate.node.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.farmgate.error.ConflictException;
import org.farmgate.model.Role;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.testkit.time.MutableClock;
import org.junit.jupiter.api.Test;

class TokenAndTicketTest {

    private final MutableClock clock = new MutableClock();

    @Test
    void bootstrapTokenIsAdmin() {
        TokenService tokens = tokens(new LocalSharedMap<>(clock), new LocalSharedMap<>(clock));
        assertEquals(Role.ADMIN, join(tokens.authenticate("bootstrap")).orElseThrow().role());
        assertTrue(join(tokens.authenticate("bootstrap ")).isEmpty());
        assertTrue(join(tokens.authenticate("")).isEmpty());
        assertTrue(join(tokens.authenticate(null)).isEmpty());
    }

    @Test
    void tokensStopWorkingWhenTheyExpire() {
        TokenService tokens = tokens(new LocalSharedMap<>(clock), new LocalSharedMap<>(clock));
        String token = join(tokens.create("temp", Role.VIEWER, Set.of("ops"), clock.instant().plusSeconds(60)))
                .token();
        Identity identity = join(tokens.authenticate(token)).orElseThrow();
        assertEquals("temp", identity.name());
        assertEquals(Set.of("ops"), identity.groups());
        clock.advance(Duration.ofSeconds(60));
        assertTrue(join(tokens.authenticate(token)).isEmpty());
        assertTrue(join(tokens.list()).isEmpty(), "expired tokens are not listed");
    }

    @Test
    void anExpiredTokensRecordsGoAndItsNameIsFreeAgain() {
        LocalSharedMap<String, TokenRecord> byHash = new LocalSharedMap<>(clock);
        LocalSharedMap<String, TokenService.NameClaim> byName = new LocalSharedMap<>(clock);
        TokenService tokens = tokens(byHash, byName);
        TokenService.IssuedToken first = join(tokens.create("ci", Role.OPERATOR, Set.of(),
                clock.instant().plusSeconds(60)));
        assertInstanceOf(ConflictException.class, assertThrows(CompletionException.class,
                () -> join(tokens.create("ci", Role.OPERATOR, Set.of(), null))).getCause());
        clock.advance(Duration.ofSeconds(60));
        assertEquals(null, join(byHash.get(first.record().hash())), "the expired record is gone");
        assertEquals(null, join(byName.get("ci")));
        TokenService.IssuedToken second = join(tokens.create("ci", Role.OPERATOR, Set.of(), null));
        assertNotEquals(first.record().id(), second.record().id());
        assertEquals(second.record().id(), join(tokens.authenticate(second.token())).orElseThrow().id());
    }

    @Test
    void aNewTokenUnderARevokedNameIsSomeoneElse() {
        TokenService tokens = tokens(new LocalSharedMap<>(clock), new LocalSharedMap<>(clock));
        String before = join(tokens.authenticate(join(tokens.create("alice", Role.OPERATOR, Set.of(), null)).token()))
                .orElseThrow().id();
        assertTrue(join(tokens.revoke("alice")));
        String after = join(tokens.authenticate(join(tokens.create("alice", Role.OPERATOR, Set.of(), null)).token()))
                .orElseThrow().id();
        assertNotEquals(before, after);
        assertTrue(before.startsWith(TokenService.ID_PREFIX) && after.startsWith(TokenService.ID_PREFIX));
    }

    @Test
    void revokingATokenEndsItsTicketsAtOnce() {
        TokenService tokens = tokens(new LocalSharedMap<>(clock), new LocalSharedMap<>(clock));
        TicketService tickets = new TicketService("n1", TicketService.TICKET_PREFIX, nowhere(), tokens::byHash,
                clock);
        String token = join(tokens.create("bob", Role.OPERATOR, Set.of(), null)).token();
        Identity bob = join(tokens.authenticate(token)).orElseThrow();
        String kept = join(tickets.issue(bob, Secrets.sha256Hex(token)));
        String revoked = join(tickets.issue(bob, Secrets.sha256Hex(token)));
        assertEquals(Optional.of(bob), join(tickets.redeem(kept)));
        join(tokens.revoke("bob"));
        assertTrue(join(tickets.redeem(revoked)).isEmpty(), "a ticket is worth what its token is worth now");
    }

    @Test
    void storesHoldHashesOnly() {
        LocalSharedMap<String, TokenRecord> byHash = new LocalSharedMap<>(clock);
        LocalSharedMap<String, TokenService.NameClaim> byName = new LocalSharedMap<>(clock);
        String token = join(tokens(byHash, byName).create("hashed", Role.ADMIN, Set.of(), null)).token();
        assertEquals(Secrets.sha256Hex(token), join(byName.get("hashed")).hash());
        assertEquals("hashed", join(byHash.get(Secrets.sha256Hex(token))).name());
        assertEquals(null, join(byHash.get(token)));
    }

    @Test
    void ticketsAreSingleUseAndExpireAfterThirtySeconds() {
        TicketService tickets = new TicketService("node-1", TicketService.TICKET_PREFIX, nowhere(),
                TokenAndTicketTest::unchecked, clock);
        Identity who = new Identity("tok_u", "u", Role.VIEWER, Set.of());
        String once = join(tickets.issue(who, null));
        assertTrue(once.matches("wst_bm9kZS0x\\.[0-9a-f]{64}"), once + ": names its issuer, then the secret");
        assertEquals(Optional.of(who), join(tickets.redeem(once)));
        assertTrue(join(tickets.redeem(once)).isEmpty());

        String late = join(tickets.issue(who, null));
        clock.advance(Duration.ofSeconds(30));
        assertTrue(join(tickets.redeem(late)).isEmpty());
        String relayKind = join(tickets.issue(who, null));
        assertFalse(join(new TicketService("node-1", TicketService.RELAY_PREFIX, nowhere(),
                TokenAndTicketTest::unchecked, clock).redeem(relayKind)).isPresent(), "another kind's ticket");
    }

    /**
     * A ticket is spent where it was issued, whichever node it is handed to: once, on any node; one that names a node
     * that is gone, names none, or is not a ticket of this kind is unknown, and asks nobody.
     */
    @Test
    void aTicketIsSpentOnTheNodeThatIssuedIt() {
        Map<String, TicketService> nodes = new HashMap<>();
        List<String> asked = new ArrayList<>();
        TicketService.Issuers peers = (issuer, hash) -> {
            asked.add(issuer);
            TicketService node = nodes.get(issuer);
            return node == null ? CompletableFuture.failedFuture(new TicketService.IssuerGoneException(issuer))
                    : CompletableFuture.completedFuture(node.spend(hash));
        };
        for (String id : List.of("a", "b", "c")) {
            nodes.put(id, new TicketService(id, TicketService.TICKET_PREFIX, peers, TokenAndTicketTest::unchecked,
                    clock));
        }
        Identity who = new Identity("tok_u", "u", Role.VIEWER, Set.of());
        String ticket = join(nodes.get("a").issue(who, null));
        assertEquals(Optional.of(who), join(nodes.get("b").redeem(ticket)));
        assertEquals(List.of("a"), asked, "one request, to the issuer");
        for (TicketService node : nodes.values()) {
            assertTrue(join(node.redeem(ticket)).isEmpty(), "spent once, on every node");
        }
        assertEquals(Optional.of(who), join(nodes.get("c").redeem(join(nodes.get("c").issue(who, null)))));

        String fromGone = join(nodes.get("c").issue(who, null));
        String fromRestarted = join(nodes.get("c").issue(who, null));
        nodes.remove("c");
        assertTrue(join(nodes.get("a").redeem(fromGone)).isEmpty(), "its issuer gone, the ticket is unknown");
        nodes.put("c", new TicketService("c", TicketService.TICKET_PREFIX, peers, TokenAndTicketTest::unchecked,
                clock));
        assertTrue(join(nodes.get("a").redeem(fromRestarted)).isEmpty(), "a restarted issuer holds none of before");
        asked.clear();
        for (String forged : new String[] {"wst_", "wst_YQ", "wst_!!!.00", "rlt_YQ.00", "YQ.00", "wst_.00",
                "wst_YQ.00"}) {
            assertTrue(join(nodes.get("b").redeem(forged)).isEmpty(), forged);
        }
        assertEquals(List.of("a"), asked, "only the well-formed one, naming node a, asked it; a held no such ticket");
    }

    /** A node holds the tickets of one lifetime at most: spent or not, older ones go as new ones come. */
    @Test
    void aNodeHoldsNoTicketPastItsLife() {
        TicketService tickets = new TicketService("n", TicketService.RELAY_PREFIX, nowhere(),
                TokenAndTicketTest::unchecked, clock);
        Identity who = new Identity("tok_u", "u", Role.VIEWER, Set.of());
        for (int i = 0; i < 1000; i++) {
            join(tickets.issue(who, null));
        }
        assertEquals(1000, tickets.held());
        clock.advance(TicketService.LIFETIME);
        join(tickets.issue(who, null));
        assertEquals(1, tickets.held());
    }

    /** Issuers no test should reach: every ticket here is spent on the node that issued it. */
    private static TicketService.Issuers nowhere() {
        return (issuer, hash) -> {
            throw new AssertionError("asked node " + issuer);
        };
    }

    private static CompletionStage<Optional<Identity>> unchecked(String credential) {
        throw new AssertionError("a ticket without a credential is not checked again");
    }

    private TokenService tokens(LocalSharedMap<String, TokenRecord> byHash,
            LocalSharedMap<String, TokenService.NameClaim> byName) {
        return new TokenService("bootstrap", byHash, byName, clock);
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }
}
