package org.farmgate.node.session;

/**
 * How a session keeps its guacd connection while no client is attached, so that a client can join it again (a
 * reload, a lost network, a node that served the page and died). Asked by the tunnel whose client has gone.
 */
public interface Detacher {

    /** Whether the tunnel ending now should hand its guacd connection over instead of closing it. */
    boolean keepsGuacd();

    /** The guacd connection is held by {@code anchor} from now on; the tunnel has ended with {@code end}. */
    void detached(SessionLink anchor, TunnelEnd end);

    /** The held guacd connection ended (guacd closed it, failed, or the gateway let it go). */
    void anchorEnded(TunnelEnd end);
}
