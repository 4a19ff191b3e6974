package org.farmgate.node.auth;

import io.vertx.core.Future;

/** Whether a share link still stands (not revoked, not expired), asked when its holder attaches. */
@FunctionalInterface
public interface ShareCheck {

    Future<Boolean> stands(Identity.ShareScope scope);
}
