package org.farmgate.node.auth;

import java.time.Clock;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentMap;
import java.util.regex.Pattern;
import org.farmgate.model.Role;
import org.farmgate.node.api.ApiException;

/**
 * API tokens: the bootstrap admin token from configuration, and named tokens that admins create.
 *
 * <p>Tokens are looked up by the SHA-256 of what the caller presents, so the stores hold nothing a caller could
 * use; a second map from name to hash keeps names unique with one atomic {@code putIfAbsent}. Both maps are plain
 * {@link ConcurrentMap}s so that a cluster can pass maps every node shares.
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
    private final ConcurrentMap<String, TokenRecord> byHash;
    private final ConcurrentMap<String, String> hashByName;
    private final Clock clock;

    public TokenService(String bootstrapAdminToken, ConcurrentMap<String, TokenRecord> byHash,
            ConcurrentMap<String, String> hashByName, Clock clock) {
        this.bootstrapHash = Secrets.sha256Hex(bootstrapAdminToken);
        this.byHash = byHash;
        this.hashByName = hashByName;
        this.clock = clock;
    }

    public Optional<Identity> authenticate(String presented) {
        if (presented == null || presented.isEmpty()) {
            return Optional.empty();
        }
        String hash = Secrets.sha256Hex(presented);
        if (Secrets.constantTimeEquals(hash, bootstrapHash)) {
            return Optional.of(new Identity(BOOTSTRAP_NAME, Role.ADMIN, Set.of()));
        }
        TokenRecord record = byHash.get(hash);
        if (record == null || !Secrets.constantTimeEquals(record.hash(), hash)) {
            return Optional.empty();
        }
        if (record.isExpired(clock.instant())) {
            revoke(record.name());
            return Optional.empty();
        }
        return Optional.of(record.identity());
    }

    public IssuedToken create(String name, Role role, Set<String> groups, Instant expiresAt) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw ApiException.badRequest("field 'name' must be 1-100 characters of letters, digits and . _ @ -, "
                    + "starting with a letter or digit");
        }
        if (name.equals(BOOTSTRAP_NAME)) {
            throw ApiException.conflict("token name 'admin' is reserved for the bootstrap token");
        }
        Instant now = clock.instant();
        if (expiresAt != null && !expiresAt.isAfter(now)) {
            throw ApiException.badRequest("field 'expires_at' must be in the future");
        }
        String token = Secrets.newSecret(TOKEN_PREFIX);
        String hash = Secrets.sha256Hex(token);
        if (hashByName.putIfAbsent(name, hash) != null) {
            throw ApiException.conflict("a token named '" + name + "' already exists");
        }
        TokenRecord record = new TokenRecord(name, role, Set.copyOf(groups), now, expiresAt, hash);
        byHash.put(hash, record);
        return new IssuedToken(token, record);
    }

    public List<TokenRecord> list() {
        Instant now = clock.instant();
        return byHash.values().stream()
                .filter(record -> !record.isExpired(now))
                .sorted(Comparator.comparing(TokenRecord::name))
                .toList();
    }

    /** @return whether a token of that name existed */
    public boolean revoke(String name) {
        String hash = hashByName.remove(name);
        if (hash == null) {
            return false;
        }
        byHash.remove(hash);
        return true;
    }
}
