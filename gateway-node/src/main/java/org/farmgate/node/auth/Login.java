package org.farmgate.node.auth;

import java.io.Serializable;
import java.time.Instant;

/**
 * A person's login, valid on every node: a cluster record under the hash of its cookie's value (the cookie itself is
 * never stored), sealed like every shared record. It lives while used (its time to live is the idle lifetime, renewed
 * by use) and never past {@code endsAt}.
 *
 * @param key the record's own key, the cookie's hash (not a secret: the cookie cannot be made from it), so that a
 *     person's logins can be found and ended
 * @param csrf what every state-changing call made with the cookie must repeat in {@code X-CSRF-Token}: a page of
 *     this origin can read it from {@code /api/me}, another site cannot
 */
public record Login(String key, Identity identity, Instant startedAt, Instant endsAt, Instant renewedAt,
        String csrf) implements Serializable {

    Login renewed(Instant at) {
        return new Login(key, identity, startedAt, endsAt, at, csrf);
    }

    @Override
    public String toString() {
        return "Login[" + identity.id() + ", until " + endsAt + "]";
    }
}
