package org.farmgate.node.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.farmgate.model.Role;
import org.junit.jupiter.api.Test;

class TokenAndTicketTest {

    private final MutableClock clock = new MutableClock();

    @Test
    void bootstrapTokenIsAdmin() {
        TokenService tokens = tokens();
        assertEquals(Role.ADMIN, tokens.authenticate("bootstrap").orElseThrow().role());
        assertTrue(tokens.authenticate("bootstrap ").isEmpty());
        assertTrue(tokens.authenticate("").isEmpty());
        assertTrue(tokens.authenticate(null).isEmpty());
    }

    @Test
    void tokensStopWorkingWhenTheyExpire() {
        TokenService tokens = tokens();
        String token = tokens.create("temp", Role.VIEWER, Set.of("ops"), clock.instant().plusSeconds(60)).token();
        Identity identity = tokens.authenticate(token).orElseThrow();
        assertEquals("temp", identity.name());
        assertEquals(Set.of("ops"), identity.groups());
        clock.advance(Duration.ofSeconds(60));
        assertTrue(tokens.authenticate(token).isEmpty());
        assertTrue(tokens.list().isEmpty(), "expired tokens are not listed");
    }

    @Test
    void storesHoldHashesOnly() {
        ConcurrentHashMap<String, TokenRecord> byHash = new ConcurrentHashMap<>();
        ConcurrentHashMap<String, String> byName = new ConcurrentHashMap<>();
        TokenService tokens = new TokenService("bootstrap", byHash, byName, clock);
        String token = tokens.create("hashed", Role.ADMIN, Set.of(), null).token();
        assertFalse(byHash.toString().contains(token));
        assertFalse(byName.toString().contains(token));
        assertEquals(Set.of(Secrets.sha256Hex(token)), byHash.keySet());
    }

    @Test
    void ticketsAreSingleUseAndExpireAfterThirtySeconds() {
        ConcurrentHashMap<String, TicketService.Ticket> store = new ConcurrentHashMap<>();
        TicketService tickets = new TicketService(store, clock);
        Identity who = new Identity("u", Role.VIEWER, Set.of());
        String once = tickets.issue(who);
        assertFalse(store.toString().contains(once), "the store holds the hash, not the ticket");
        assertEquals(who, tickets.redeem(once).orElseThrow());
        assertTrue(tickets.redeem(once).isEmpty());

        String late = tickets.issue(who);
        clock.advance(Duration.ofSeconds(30));
        assertTrue(tickets.redeem(late).isEmpty());

        tickets.issue(who);
        clock.advance(Duration.ofSeconds(31));
        assertEquals(1, tickets.purgeExpired());
        assertTrue(store.isEmpty());
    }

    private TokenService tokens() {
        return new TokenService("bootstrap", new ConcurrentHashMap<>(), new ConcurrentHashMap<>(), clock);
    }

    /** A clock the test moves. */
    static final class MutableClock extends Clock {

        private Instant now = Instant.parse("2026-01-01T00:00:00Z");

        void advance(Duration by) {
            now = now.plus(by);
        }

        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
