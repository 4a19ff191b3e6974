package org.farmgate.node.session;

/** Hears how a tunnel ended, once, on the tunnel's event loop. */
public interface TunnelListener {

    /**
     * @param hold guacd's connection, offered when the client left without a word ({@link TunnelEnd.Cause#CLIENT_LEFT});
     *     null when the tunnel closed it
     */
    void ended(TunnelEnd end, GuacdHold hold);
}
