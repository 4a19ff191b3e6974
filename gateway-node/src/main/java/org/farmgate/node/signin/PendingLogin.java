package org.farmgate.node.signin;

import java.io.Serializable;
import java.time.Instant;

/**
 * A sign-in on its way through the identity provider, under its {@code state}: what the callback needs, on whichever
 * node it lands. Taken (removed) once, so a replayed callback finds nothing.
 *
 * @param returnTo where in the pages the person was going: a path of this site only
 * @param browserHash the hash of the value the starting browser was given as a cookie: only that browser completes it
 */
public record PendingLogin(String codeVerifier, String nonce, String returnTo, Instant startedAt, String browserHash)
        implements Serializable {

    @Override
    public String toString() {
        return "PendingLogin[to " + returnTo + ", since " + startedAt + "]";
    }
}
