package org.farmgate.router.seal;

import java.io.Serializable;

/**
 * A record as it lies in a shared map of a secured cluster: the value's bytes and the proof, under the cluster key,
 * that a node wrote them for this map and this key. Anyone on the cluster network may read or garble it; only a
 * holder of the cluster key can make one that opens.
 */
public record Sealed(String map, String key, byte[] payload, byte[] mac) implements Serializable {
}
