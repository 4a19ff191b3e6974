package org.farmgate.router.seal;

import com.hazelcast.config.SerializerConfig;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;
import java.io.IOException;
import java.util.List;
import org.farmgate.router.store.CompactForm;

/**
 * Sealed records and signed updates in Hazelcast's stream form: two strings and two byte arrays, instead of Java
 * serialization's class descriptors around the same bytes on every message, read and written on the partition
 * threads. What arrives is only bytes until its seal is checked; a length beyond any record is refused before
 * anything is allocated for it.
 */
public final class SealSerializers {

    /** Larger than any address book a farm has; a frame claiming more is garbage or hostile. */
    static final int LONGEST_PAYLOAD = 64 * 1024 * 1024;
    private static final int MAC_LENGTH = 32;

    private SealSerializers() {
    }

    public static List<SerializerConfig> serializers() {
        return List.of(
                new SerializerConfig().setTypeClass(Sealed.class).setImplementation(new SealedSerializer()),
                new SerializerConfig().setTypeClass(SealedUpdate.class).setImplementation(new UpdateSerializer()),
                new SerializerConfig().setTypeClass(Revised.class).setImplementation(new RevisedSerializer()),
                new SerializerConfig().setTypeClass(FenceNote.class).setImplementation(new NoteSerializer()));
    }

    static final class SealedSerializer implements StreamSerializer<Sealed> {

        @Override
        public int getTypeId() {
            return 7001;
        }

        @Override
        public void write(ObjectDataOutput out, Sealed sealed) throws IOException {
            out.writeString(sealed.map());
            out.writeString(sealed.key());
            out.writeLong(sealed.revision());
            bytes(out, sealed.payload());
            bytes(out, sealed.mac());
        }

        @Override
        public Sealed read(ObjectDataInput in) throws IOException {
            return new Sealed(in.readString(), in.readString(), in.readLong(), bytes(in, LONGEST_PAYLOAD),
                    bytes(in, MAC_LENGTH));
        }
    }

    static final class UpdateSerializer implements StreamSerializer<SealedUpdate<?, ?>> {

        private final SealedSerializer signed = new SealedSerializer();

        @Override
        public int getTypeId() {
            return 7002;
        }

        @Override
        public void write(ObjectDataOutput out, SealedUpdate<?, ?> update) throws IOException {
            out.writeString(update.map());
            out.writeString(update.key());
            signed.write(out, update.signed());
        }

        @Override
        public SealedUpdate<?, ?> read(ObjectDataInput in) throws IOException {
            return new SealedUpdate<>(in.readString(), in.readString(), signed.read(in));
        }
    }

    /**
     * An owner's answer, on every update: the answer inside in the {@link CompactForm} (a reservation's answer carries
     * the node's whole entry), or as Hazelcast writes any object where that form cannot carry it.
     */
    static final class RevisedSerializer implements StreamSerializer<Revised<?>> {

        private static final byte COMPACT = 1;
        private static final byte OBJECT = 0;

        @Override
        public int getTypeId() {
            return 7003;
        }

        @Override
        public void write(ObjectDataOutput out, Revised<?> revised) throws IOException {
            byte[] compact = CompactForm.write(revised.result());
            if (compact != null) {
                out.writeByte(COMPACT);
                bytes(out, compact);
            } else {
                out.writeByte(OBJECT);
                out.writeObject(revised.result());
            }
            out.writeLong(revised.revision());
            out.writeBoolean(revised.present());
            out.writeBoolean(revised.fenced());
            out.writeString(revised.refused());
        }

        @Override
        public Revised<?> read(ObjectDataInput in) throws IOException {
            return new Revised<>(result(in), in.readLong(), in.readBoolean(), in.readBoolean(), in.readString());
        }

        private static Object result(ObjectDataInput in) throws IOException {
            byte form = in.readByte();
            if (form == OBJECT) {
                return in.readObject();
            }
            if (form != COMPACT) {
                throw new IOException("an owner's answer in form " + form);
            }
            byte[] compact = bytes(in, LONGEST_PAYLOAD);
            if (compact == null) {
                throw new IOException("an owner's answer in the compact form without its bytes");
            }
            try {
                return CompactForm.read(compact);
            } catch (CompactForm.Malformed e) {
                throw new IOException("an owner's answer that does not read: " + e.getMessage(), e);
            }
        }
    }

    /** A fence riding in a backup: the sealed fence alone. */
    static final class NoteSerializer implements StreamSerializer<FenceNote> {

        private final SealedSerializer signed = new SealedSerializer();

        @Override
        public int getTypeId() {
            return 7004;
        }

        @Override
        public void write(ObjectDataOutput out, FenceNote note) throws IOException {
            signed.write(out, note.signed());
        }

        @Override
        public FenceNote read(ObjectDataInput in) throws IOException {
            return new FenceNote(signed.read(in));
        }
    }

    private static void bytes(ObjectDataOutput out, byte[] bytes) throws IOException {
        out.writeInt(bytes == null ? -1 : bytes.length);
        if (bytes != null) {
            out.write(bytes);
        }
    }

    private static byte[] bytes(ObjectDataInput in, int longest) throws IOException {
        int length = in.readInt();
        if (length == -1) {
            return null;
        }
        if (length < 0 || length > longest) {
            throw new IOException("a sealed record field of " + length + " bytes (at most " + longest + ")");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }
}
