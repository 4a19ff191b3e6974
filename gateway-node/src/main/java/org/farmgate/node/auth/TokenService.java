package org.farmgate.node.auth;

import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;
import org.farmgate.error.ConflictException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.Role;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;

/**
 * API tokens: the bootstrap admin token from configuration, and named tokens that admins create, valid on every
 * node of the cluster.
 *
 * <p>Tokens are looked up by the SHA-256 of what the caller presents, so the shared maps hold nothing a caller could
 * use. A second map from name to hash keeps names unique: a name is claimed by one atomic update, which also takes
 * over the name of a token that has expired. A token with an expiry is stored with it as its time to live, so an
 * expired token's records disappear by themselves and its name is free again.
 *
 * <p>The maps are the fast path, the {@link TokenLedger} (the database) the truth: a token is written there before
 * it is put in the maps, a revocation is taken from the maps at once and recorded there, and a cluster started from
 * nothing puts back what the ledger holds ({@link #restore}). The check of a token never waits on the database.
 */
public final class TokenService {

    /** Prefix of generated tokens, so that they are recognisable in a secret scanner. */
    public static final String TOKEN_PREFIX = "gwt_";
    public static final String BOOTSTRAP_NAME = "admin";
    /** The bootstrap token's id; generated ids carry {@link #ID_PREFIX}, so none can equal it. */
    public static final String BOOTSTRAP_ID = "admin";
    public static final String ID_PREFIX = "tok_";

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,99}");

    /** A token as created: the only moment the secret is known. */
    public record IssuedToken(String token, TokenRecord record) {
    }

    /** Who holds a name: the token's hash, until when. */
    public record NameClaim(String hash, Instant expiresAt) implements Serializable {

        boolean isExpired(Instant now) {
            return expiresAt != null && !now.isBefore(expiresAt);
        }
    }

    private final String bootstrapHash;
    private final SharedMap<String, TokenRecord> byHash;
    private final SharedMap<String, NameClaim> names;
    private final Clock clock;
    private final TokenLedger ledger;

    public TokenService(String bootstrapAdminToken, SharedMap<String, TokenRecord> byHash,
            SharedMap<String, NameClaim> names, Clock clock) {
        this(bootstrapAdminToken, byHash, names, clock, TokenLedger.NONE);
    }

    public TokenService(String bootstrapAdminToken, SharedMap<String, TokenRecord> byHash,
            SharedMap<String, NameClaim> names, Clock clock, TokenLedger ledger) {
        this.bootstrapHash = Secrets.sha256Hex(bootstrapAdminToken);
        this.byHash = byHash;
        this.names = names;
        this.clock = clock;
        this.ledger = ledger;
    }

    public CompletionStage<Optional<Identity>> authenticate(String presented) {
        if (presented == null || presented.isEmpty()) {
            return CompletableFuture.completedFuture(Optional.empty());
        }
        return byHash(Secrets.sha256Hex(presented));
    }

    /** The identity of the token with this hash as it is now: empty once revoked or expired. */
    public CompletionStage<Optional<Identity>> byHash(String hash) {
        if (Secrets.constantTimeEquals(hash, bootstrapHash)) {
            return CompletableFuture.completedFuture(Optional.of(
                    new Identity(BOOTSTRAP_ID, BOOTSTRAP_NAME, Role.ADMIN, Set.of())));
        }
        return byHash.get(hash).thenApply(record -> record == null || !Secrets.constantTimeEquals(record.hash(), hash)
                || record.isExpired(clock.instant()) ? Optional.<Identity>empty() : Optional.of(record.identity()));
    }

    public CompletionStage<IssuedToken> create(String name, Role role, Set<String> groups, Instant expiresAt) {
        return create(name, role, groups, expiresAt, null);
    }

    /**
     * A new token: its name claimed in the cluster (the one atomic decision), then written to the ledger, then put
     * where every node finds it. A ledger that cannot write it gives the name back, and the caller hears why.
     */
    public CompletionStage<IssuedToken> create(String name, Role role, Set<String> groups, Instant expiresAt,
            String createdBy) {
        return create(name, role, groups, expiresAt, createdBy, null);
    }

    /** A token, a person's own when {@code owner} names them. */
    public CompletionStage<IssuedToken> create(String name, Role role, Set<String> groups, Instant expiresAt,
            String createdBy, String owner) {
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
        String id = ID_PREFIX + Secrets.newSecret("").substring(0, 24);
        TokenRecord record = new TokenRecord(id, name, role, Set.copyOf(groups), now, expiresAt, hash, owner);
        Duration ttl = expiresAt == null ? null : Duration.between(now, expiresAt);
        return names.update(name, new Claim(new NameClaim(hash, expiresAt), ttl, now)).thenCompose(claimed -> {
            if (!claimed) {
                throw new ConflictException("a token named '" + name + "' already exists");
            }
            return ledger.created(record, createdBy)
                    .handle((written, error) -> error)
                    .thenCompose(error -> error == null ? put(record, ttl)
                            : names.remove(name).<Void>thenApply(released -> {
                                throw error instanceof CompletionException wrapped ? wrapped
                                        : new CompletionException(error);
                            }))
                    .thenApply(ignored -> new IssuedToken(token, record));
        });
    }

    private CompletionStage<Void> put(TokenRecord record, Duration ttl) {
        return ttl == null ? byHash.set(record.hash(), record) : byHash.set(record.hash(), record, ttl);
    }

    /**
     * Puts back the ledger's tokens, for a cluster whose maps start empty: each name claimed if free, and only then
     * its hash put, so that a token made meanwhile under the same name is never overwritten.
     *
     * @return how many tokens were put back
     */
    public CompletionStage<Integer> restore() {
        Instant now = clock.instant();
        return ledger.active().thenCompose(records -> {
            CompletionStage<Integer> all = CompletableFuture.completedFuture(0);
            for (TokenRecord record : records) {
                if (record.isExpired(now)) {
                    continue;
                }
                Duration ttl = record.expiresAt() == null ? null : Duration.between(now, record.expiresAt());
                // the claim decides: a name claimed for this token's hash makes the hash's slot this token's
                all = all.thenCompose(count -> names.update(record.name(),
                        new Claim(new NameClaim(record.hash(), record.expiresAt()), ttl, now))
                        .thenCompose(claimed -> claimed ? put(record, ttl).thenApply(ignored -> count + 1)
                                : CompletableFuture.completedFuture(count)));
            }
            return all;
        });
    }

    public CompletionStage<List<TokenRecord>> list() {
        Instant now = clock.instant();
        return byHash.query(new Unexpired(now)).thenApply(records -> records.stream()
                .sorted(Comparator.comparing(TokenRecord::name)).toList());
    }

    /** @return whether a token of that name existed */
    public CompletionStage<Boolean> revoke(String name) {
        return revoke(name, null);
    }

    /** Refused by every node at once; recorded in the ledger as soon as it can be. */
    public CompletionStage<Boolean> revoke(String name, String by) {
        return names.remove(name).thenCompose(claim -> claim == null
                ? CompletableFuture.completedFuture(false)
                : byHash.remove(claim.hash()).thenApply(removed -> {
                    if (removed != null) {
                        ledger.revoked(removed, by);
                    }
                    return true;
                }));
    }

    /** Revokes every token of a person's own: what disabling or deleting them does. */
    public CompletionStage<Integer> revokeOwnedBy(String owner, String by) {
        return byHash.query(new OwnedBy(owner)).thenCompose(names -> {
            CompletionStage<Integer> all = CompletableFuture.completedFuture(0);
            for (String name : names) {
                all = all.thenCompose(count -> revoke(name, by).thenApply(revoked -> revoked ? count + 1 : count));
            }
            return all;
        });
    }

    /** Claims a name that is free or held by an expired token. */
    private record Claim(NameClaim claim, Duration ttl, Instant now) implements Update<NameClaim, Boolean> {

        @Override
        public Outcome<NameClaim, Boolean> apply(NameClaim current) {
            if (current != null && !current.isExpired(now)) {
                return Outcome.keep(false);
            }
            return ttl == null ? Outcome.store(claim, true) : Outcome.storeFor(claim, ttl, true);
        }

        /** A name claim grants nothing; an old one put back only holds a name. */
        @Override
        public boolean narrows(NameClaim before, NameClaim after) {
            return false;
        }
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

    private record OwnedBy(String owner) implements Query<TokenRecord, String> {

        @Override
        public boolean matches(TokenRecord value) {
            return owner.equals(value.owner());
        }

        @Override
        public String project(TokenRecord value) {
            return value.name();
        }
    }
}
