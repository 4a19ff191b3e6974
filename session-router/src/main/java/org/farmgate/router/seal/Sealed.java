package org.farmgate.router.seal;

import java.io.Serializable;

/**
 * A record as it lies in a shared map of a secured cluster: the value's bytes, its revision, and the proof, under
 * the cluster key, that a node wrote them for this map and this key at this revision. Anyone on the cluster network
 * may read, garble or copy it back later; only a holder of the cluster key can make one that opens, and a copy put
 * back is older than the write that replaced it ({@link Fences}).
 */
public record Sealed(String map, String key, long revision, byte[] payload, byte[] mac) implements Serializable {
}
