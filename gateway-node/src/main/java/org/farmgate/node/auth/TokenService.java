package org.farmgate.node.auth;

import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.farmgate.error.ConflictException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.Role;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;

/**
 * API tokens: the bootstrap admin token from configuration, and named tokens that admins create, valid on every
 * node of the cluster.
 *
 * <p>Tokens are looked up by the SHA-256 of what the caller presents, so the shared maps hold nothing a caller could
 * use; a second map from name to hash keeps names unique with one atomic {@code putIfAbsent}.
 */
public final class TokenService {

    /** Prefix of generated tokens, so that they are recognisable in a secret scanner. */
    public static final String TOKEN_PREFIX = "gwt_";
    public static final String BOOTSTRAP_NAME = "admin";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,99}");

    /** A token as created: the only moment the secret is known. */
    public record IssuedToken(String token, TokenRecord record) {
    }

    private final String bootstrapHash;
    private final SharedMap<String, TokenRecord> byHash;
    private final SharedMap<String, String> hashByName;
    private final Clock clock;

    public TokenService(String bootstrapAdminToken, SharedMap<String, TokenRecord> byHash,
            SharedMap<String, String> hashByName, Clock clock) {
        this.bootstrapHash = Secrets.sha256Hex(bootstrapAdminToken);
        this.byHash = byHash;
        this.hashByName = hashByName;
        this.clock = clock;
    }

    public CompletionStage<Optional<Identity>> authenticate(String presented) {
        if (presented == null || presented.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        String hash = Secrets.sha256Hex(presented);
        if (Secrets.constantTimeEquals(hash, bootstrapHash)) {
            return CompletableFuture.completedFuture(Optional.of(new Identity(BOOTSTRAP_NAME, Role.ADMIN, Set.of())));
        }
        return byHash.get(hash).thenCompose(record -> {
            if (record == null || !Secrets.constantTimeEquals(record.hash(), hash)) {
                return CompletableFuture.completedFuture(Optional.<Identity>empty());
            }
            if (record.isExpired(clock.instant())) {
                return revoke(record.name()).thenApply(ignored -> Optional.<Identity>empty());
            }
            return CompletableFuture.completedFuture(Optional.of(record.identity()));
        });
    }

    public CompletionStage<IssuedToken> create(String name, Role role, Set<String> groups, Instant expiresAt) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new InvalidRequestException("field 'name' must be 1-100 characters of letters, digits and . _ @ -, "
                    + "starting with a letter or digit");
        }
        if (name.equals(BOOTSTRAP_NAME)) {
            throw new ConflictException("token name 'admin' is reserved for the bootstrap token");
        }
        Instant now = clock.instant();
        if (expiresAt != null && !expiresAt.isAfter(now)) {
            throw new InvalidRequestException("field 'expires_at' must be in the future");
        }
        String token = Secrets.newSecret(TOKEN_PREFIX);
        String hash = Secrets.sha256Hex(token);
        TokenRecord record = new TokenRecord(name, role, Set.copyOf(groups), now, expiresAt, hash);
        return hashByName.putIfAbsent(name, hash).thenCompose(existing -> {
            if (existing != null) {
                throw new ConflictException("a token named '" + name + "' already exists");
            }
            return byHash.set(hash, record).thenApply(ignored -> new IssuedToken(token, record));
        });
    }

    public CompletionStage<List<TokenRecord>> list() {
        Instant now = clock.instant();
        return byHash.query(new Unexpired(now)).thenApply(records -> records.stream()
                .sorted(Comparator.comparing(TokenRecord::name)).toList());
    }

    /** @return whether a token of that name existed */
    public CompletionStage<Boolean> revoke(String name) {
        return hashByName.remove(name).thenCompose(hash -> hash == null
                ? CompletableFuture.completedFuture(false)
                : byHash.remove(hash).thenApply(ignored -> true));
    }

    private record Unexpired(Instant now) implements Query<TokenRecord, TokenRecord> {

        @Override
        public boolean matches(TokenRecord value) {
            return !value.isExpired(now);
        }

        @Override
        public TokenRecord project(TokenRecord value) {
            return value;
        }
    }
}
