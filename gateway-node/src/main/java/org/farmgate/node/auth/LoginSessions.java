package org.farmgate.node.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;

/**
 * People's logins, cluster-wide. The cookie holds a random secret; the cluster holds only its hash. A login used
 * within its idle lifetime is renewed (at most once a minute, so a busy page does not write on every call); one
 * past its absolute lifetime is gone whatever its use.
 */
public final class LoginSessions {

    public static final String COOKIE = "farmgate_login";
    /** How a ticket names the login that proved its holder: re-checked when the ticket is redeemed. */
    public static final String CREDENTIAL_PREFIX = "login:";
    private static final String SECRET_PREFIX = "fgl_";
    private static final Duration RENEW_EVERY = Duration.ofMinutes(1);

    private final SharedMap<String, Login> logins;
    private final Duration idle;
    private final Duration absolute;
    private final Clock clock;

    public LoginSessions(SharedMap<String, Login> logins, Duration idle, Duration absolute, Clock clock) {
        this.logins = logins;
        this.idle = idle;
        this.absolute = absolute;
        this.clock = clock;
    }

    /** A new login; the returned secret goes into the cookie and nowhere else. */
    public CompletionStage<String> start(Identity person) {
        String secret = Secrets.newSecret(SECRET_PREFIX);
        Instant now = clock.instant();
        String key = Secrets.sha256Hex(secret);
        Login login = new Login(key, person, now, now.plus(absolute), now, Secrets.newSecret(""));
        return logins.set(key, login, ttl(login, now)).thenApply(ignored -> secret);
    }

    /** The login a cookie stands for now; renewed when it is used. */
    public CompletionStage<Optional<Login>> find(String secret) {
        if (secret == null || !secret.startsWith(SECRET_PREFIX)) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return byHash(Secrets.sha256Hex(secret));
    }

    /** The identity a login's hash stands for now (a ticket's credential); empty once it ended. */
    public CompletionStage<Optional<Identity>> identityOf(String credential) {
        if (!credential.startsWith(CREDENTIAL_PREFIX)) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return byHash(credential.substring(CREDENTIAL_PREFIX.length())).thenApply(found -> found.map(Login::identity));
    }

    public static String credentialOf(String secret) {
        return CREDENTIAL_PREFIX + Secrets.sha256Hex(secret);
    }

    private CompletionStage<Optional<Login>> byHash(String hash) {
        return logins.get(hash).thenCompose(login -> {
            Instant now = clock.instant();
            if (login == null || !now.isBefore(login.endsAt())) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            if (Duration.between(login.renewedAt(), now).compareTo(RENEW_EVERY) < 0) {
                return CompletableFuture.completedFuture(Optional.of(login));
            }
            Login renewed = login.renewed(now);
            return logins.set(hash, renewed, ttl(renewed, now)).thenApply(ignored -> Optional.of(renewed));
        });
    }

    /** Ends the login a cookie stands for. */
    public CompletionStage<Void> end(String secret) {
        if (secret == null) {
            return CompletableFuture.completedFuture(null);
        }
        return logins.remove(Secrets.sha256Hex(secret)).thenApply(ignored -> null);
    }

    /** Ends every login of a person, on every node: their cookies are worth nothing from now on. */
    public CompletionStage<Integer> endAll(String identityId) {
        return logins.query(new OfPerson(identityId)).thenCompose(hashes -> {
            CompletionStage<Void> all = CompletableFuture.completedFuture(null);
            for (String hash : hashes) {
                all = all.thenCompose(ignored -> logins.remove(hash).thenApply(removed -> null));
            }
            return all.thenApply(ignored -> hashes.size());
        });
    }

    private Duration ttl(Login login, Instant now) {
        Duration left = Duration.between(now, login.endsAt());
        return left.compareTo(idle) < 0 ? left : idle;
    }

    /** The keys of a person's logins. */
    private record OfPerson(String identityId) implements Query<Login, String> {

        @Override
        public boolean matches(Login value) {
            return value.identity().id().equals(identityId);
        }

        @Override
        public String project(Login value) {
            return value.key();
        }
    }
}
