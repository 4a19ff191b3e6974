package org.farmgate.node.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.farmgate.model.Role;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.testkit.time.MutableClock;
import org.junit.jupiter.api.Test;

/** A login lives while used within its idle lifetime, never past its absolute one, and nothing stored signs in. */
class LoginSessionsTest {

    private final MutableClock clock = new MutableClock();
    private final LocalSharedMap<String, Login> map = new LocalSharedMap<>(clock);
    private final LoginSessions logins = new LoginSessions(map, Duration.ofMinutes(30), Duration.ofHours(2), clock);
    private final Identity alice = Identity.person("sub-1", "alice", "alice@farm.example", Role.ADMIN, Set.of("a"));

    @Test
    void aLoginUsedWithinItsIdleTimeLivesUntilItsAbsoluteEnd() {
        String cookie = join(logins.start(alice));
        for (int i = 0; i < 4; i++) { // used every 25 minutes: each use renews it
            clock.advance(Duration.ofMinutes(25));
            assertEquals(Optional.of(alice), join(logins.find(cookie)).map(Login::identity), "after " + (i + 1));
        }
        clock.advance(Duration.ofMinutes(25)); // 2 h 5 min after sign-in, 25 min after its last use
        assertTrue(join(logins.find(cookie)).isEmpty(), "a login outlived its absolute lifetime");
    }

    @Test
    void aLoginUnusedForItsIdleTimeEnds() {
        String cookie = join(logins.start(alice));
        clock.advance(Duration.ofMinutes(31));
        assertTrue(join(logins.find(cookie)).isEmpty());
    }

    @Test
    void theClusterHoldsNoCookieAndEndingAPersonEndsAllTheirLogins() {
        String first = join(logins.start(alice));
        String second = join(logins.start(alice));
        assertTrue(join(map.get(first)) == null && join(map.get(second)) == null, "a cookie is a key of the map");
        assertEquals(2, join(logins.endAll(alice.id())));
        assertTrue(join(logins.find(first)).isEmpty() && join(logins.find(second)).isEmpty());
        assertTrue(join(logins.find("fgl_forged")).isEmpty() && join(logins.find(null)).isEmpty());
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }
}
