package org.farmgate.router.store;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.Serializable;

/**
 * An entry owner's word that it decided an update which says {@code statement} (a session granted one of its user's
 * places), at {@code revision}: handed back with the update's answer, so that the caller can show it to a third node,
 * which then believes it without reading the entry again. Only a sealed map's owner makes one, with the cluster key,
 * and only a sealed map checks one ({@link SharedMap#vouched}); a plain map makes none, and its callers read.
 */
public record Voucher(@JsonProperty("map") String map, @JsonProperty("key") String key,
        @JsonProperty("statement") String statement, @JsonProperty("revision") long revision,
        @JsonProperty("proof") byte[] proof) implements Serializable {
}
