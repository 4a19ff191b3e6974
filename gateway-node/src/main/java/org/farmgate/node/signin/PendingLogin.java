package org.farmgate.node.signin;

import java.io.Serializable;
import java.time.Instant;

/**
 * A sign-in on its way through the identity provider, under its {@code state}: what the callback needs, on whichever
 * node it lands. Taken (removed) once, so a replayed callback finds nothing.
 *
 * @param returnTo where in the pages the person was going: a path of this site only
 */
public record PendingLogin(String codeVerifier, String nonce, String returnTo, Instant startedAt) implements Serializable {

    @Override
    public String toString() {
        return "PendingLogin[to " + returnTo + ", since " + startedAt + "]";
    }
}
