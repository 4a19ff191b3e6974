package org.farmgate.router.seal;

import java.nio.ByteBuffer;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.ReplicaNote;

/**
 * The fence of a write, as the entry's owner hands it to the members that keep the entry's backups: they are the
 * ones that own the entry next if the owner is lost, and must then refuse the copy the write replaced as the owner
 * did. Sealed by the owner under the map's name with {@code #fence}, which no record or order is sealed under, so a
 * note never opens as anything else; a member without the key can send one, but none that is believed. An old note
 * sent again is an older fence, which changes nothing.
 */
record FenceNote(Sealed signed) implements ReplicaNote {

    private static final String SUFFIX = "#fence";
    /** Whether the write left a record, and until when its fence lasts. */
    private static final int PAYLOAD = 9;

    static FenceNote of(Seal seal, Fences.Fence fence) {
        byte[] payload = ByteBuffer.allocate(PAYLOAD).put((byte) (fence.present() ? 1 : 0))
                .putLong(fence.expiresAtMillis()).array();
        return new FenceNote(seal.tag(fence.map() + SUFFIX, fence.key(), fence.revision(), payload));
    }

    @Override
    public void reached(MemberContext replica) {
        Seal seal = replica.get(Seal.class);
        Fences fences = replica.get(Fences.class);
        Fences.Fence fence = fence();
        if (seal != null && fences != null && fence != null && seal.authentic(signed)) {
            fences.learn(fence);
        }
    }

    /** The fence the note claims, or null when it is not one's shape. */
    Fences.Fence fence() {
        if (signed == null || signed.map() == null || !signed.map().endsWith(SUFFIX) || signed.payload() == null
                || signed.payload().length != PAYLOAD) {
            return null;
        }
        ByteBuffer payload = ByteBuffer.wrap(signed.payload());
        return new Fences.Fence(signed.map().substring(0, signed.map().length() - SUFFIX.length()), signed.key(),
                signed.revision(), payload.get() != 0, payload.getLong());
    }
}
