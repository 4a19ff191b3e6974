package org.farmgate.model;

import java.io.Serializable;

/**
 * Where a node is: its cluster member, and the HTTP address other nodes and load balancers reach it on.
 *
 * @param memberId the cluster member's id, so that the node's entries go when the member does
 */
public record NodeAddress(String memberId, String httpHost, int httpPort) implements Serializable {
}
