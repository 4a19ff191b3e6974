package org.farmgate.model;

import java.io.Serializable;

/**
 * Where a node is: its cluster member, the HTTP address load balancers reach it on, and the port of its internal
 * relay listener (mutual TLS in a secured cluster) that other nodes relay WebSockets to, on the same host.
 *
 * @param memberId the cluster member's id, so that the node's entries go when the member does
 */
public record NodeAddress(String memberId, String httpHost, int httpPort, int relayPort) implements Serializable {

    /** A node whose relay listens on its HTTP port (tools and tests that need no relay). */
    public NodeAddress(String memberId, String httpHost, int httpPort) {
        this(memberId, httpHost, httpPort, httpPort);
    }
}
