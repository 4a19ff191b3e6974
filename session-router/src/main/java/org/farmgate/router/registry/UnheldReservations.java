package org.farmgate.router.registry;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.farmgate.model.NodeLoad;

/**
 * Reservations in this node's registry entry for sessions the node does not hold: on their way (a router reserved,
 * the open request is travelling) or orphaned (the router died). Each is timed from the heartbeat that first saw it,
 * on this node's clock alone, and given up once it has waited longer than any open request may take. This is also
 * what undoes a heartbeat that crossed a release on its way (it carried a session the node held when it left, and
 * stored it back after the release): the node does not hold it, so it goes after the same patience.
 */
public final class UnheldReservations {

    private final long patienceMillis;
    private final Map<String, Long> firstSeen = new HashMap<>();

    public UnheldReservations(Duration patience) {
        this.patienceMillis = patience.toMillis();
    }

    /** The reservations of {@code entry} that the node, holding {@code held}, gives up at {@code nowMillis}. */
    public synchronized Set<String> expired(NodeLoad entry, Set<String> held, long nowMillis) {
        if (entry == null) {
            firstSeen.clear();
            return Set.of();
        }
        Set<String> unheld = entry.reservations().entries().keySet().stream().filter(id -> !held.contains(id))
                .collect(Collectors.toSet());
        firstSeen.keySet().retainAll(unheld);
        unheld.forEach(id -> firstSeen.putIfAbsent(id, nowMillis));
        return firstSeen.entrySet().stream().filter(seen -> nowMillis - seen.getValue() >= patienceMillis)
                .map(Map.Entry::getKey).collect(Collectors.toUnmodifiableSet());
    }
}
