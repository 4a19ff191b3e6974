package org.farmgate.node.session;

import java.util.function.Consumer;

/**
 * guacd's connection of a tunnel whose client went without a word (a reload, a lost network, the page's node
 * dying), offered to the session as the tunnel ends: the session may keep it for a client to join again. Kept only
 * during the {@link TunnelListener#ended} call that offers it, on the tunnel's event loop; otherwise the tunnel lets
 * it go once the call returns.
 */
public interface GuacdHold {

    /**
     * Keeps the connection: something answers guacd as a silent client would and drops the display, until the
     * connection ends, which {@code ended} hears once.
     *
     * @return what to end the held connection by
     */
    SessionLink keep(Consumer<TunnelEnd> ended);
}
