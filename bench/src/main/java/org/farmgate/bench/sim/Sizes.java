package org.farmgate.bench.sim;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.farmgate.model.NodeLoad;
import org.farmgate.router.registry.NodeRegistry;
import org.farmgate.router.store.CompactForm;

/**
 * What a message would weigh on the wire: the size of the real record it carries in the form the cluster writes it
 * ({@link CompactForm}, Java serialization for what that form cannot carry).
 * A registry entry's size grows with its reservation list, so it is modelled from two real entries (none and 100
 * reservations) instead of serializing every entry of every query; requests are sized once per class.
 */
final class Sizes {

    /** What the seal adds to a sealed record: a revision, a key id, an HMAC-SHA256 (see {@code Seal}). */
    static final int SEAL_BYTES = 8 + 8 + 32;
    /** A fence on the event bus: map, key, revision, present, expiry, and the event bus's own framing. */
    static final int FENCE_BYTES = 160;
    /** One more fence in a batch already going: its map and key with their lengths, revision, present, expiry. */
    static final int FENCE_IN_BATCH_BYTES = 4 + 20 + 4 + 36 + 17;
    /** A fence in a backup: the map's name with #fence, the key, the revision, present and expiry, the HMAC. */
    static final int FENCE_NOTE_BYTES = 4 + 26 + 4 + 36 + 8 + 4 + 9 + 4 + 32;
    /** A Hazelcast member heartbeat (an operation with the sender's member and the cluster clock). */
    static final int HEARTBEAT_BYTES = 120;
    /** A synchronous backup's acknowledgement to the caller (a call id and the sender). */
    static final int ACK_BYTES = 60;
    /** Hazelcast's anti-entropy for one partition replica: the partition, the replica, its namespaces' versions. */
    static final int ANTI_ENTROPY_BYTES = 200;
    /** The event bus's own framing of a request or its answer: addresses, headers, lengths (as in a fence's size). */
    static final int EVENT_BUS_FRAMING_BYTES = 96;
    /** A ticket's hash asked of its issuer: 64 hex digits, as JSON, framed. */
    static final int TICKET_SPEND_BYTES = 66 + EVENT_BUS_FRAMING_BYTES;
    /** The event bus's ping, or its pong, on a connection between two nodes. */
    static final int EVENT_BUS_PING_BYTES = 40;
    /** A session id in a JSON list: 36 characters, its quotes and a comma. */
    static final int SESSION_ID_IN_LIST_BYTES = 36 + 3;

    private final Map<Class<?>, Integer> byClass = new HashMap<>();
    private final int entryBase;
    private final double entryPerReservation;

    Sizes(NodeLoad empty, NodeLoad withHundred) {
        entryBase = serialized(empty);
        entryPerReservation = (serialized(withHundred) - entryBase) / 100.0;
    }

    int of(Object value) {
        if (value == null) {
            return 1;
        }
        if (value instanceof NodeLoad node) {
            return (int) (entryBase + entryPerReservation * node.reservations().entries().size()) + SEAL_BYTES;
        }
        if (value instanceof NodeRegistry.ReserveResult result) {
            return 16 + of(result.node());
        }
        if (value instanceof Collection<?> values) {
            int total = 16;
            for (Object each : values) {
                total += of(each);
            }
            return total;
        }
        return byClass.computeIfAbsent(value.getClass(), type -> serialized(value));
    }

    static int serialized(Object value) {
        byte[] compact = CompactForm.write(value);
        if (compact != null) {
            return compact.length;
        }
        int[] count = new int[1];
        try (ObjectOutputStream out = new ObjectOutputStream(new OutputStream() {
            @Override
            public void write(int b) {
                count[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                count[0] += len;
            }
        })) {
            out.writeObject(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return count[0];
    }
}
