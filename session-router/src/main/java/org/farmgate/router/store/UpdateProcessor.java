package org.farmgate.router.store;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.ExtendedMapEntry;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.StreamSerializer;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs an {@link Update} on the member that owns the entry, once. The backup replica is not asked to decide again:
 * it is handed what the owner decided ({@link Replace}), so that an update that reads the clock, or opens and
 * seals a record, costs its work on one member and can never leave the backup with another value than the owner's.
 * An update that wrote nothing sends no backup at all. Hazelcast asks for the backup processor after it ran this
 * one, on the same instance (its EntryOperation's design: the backup may carry "input provided by the entry
 * processor"). What the update notes for the replicas ({@link ReplicaNote}) rides in that backup.
 */
final class UpdateProcessor<K, V, R> implements EntryProcessor<K, V, R>, HazelcastInstanceAware {

    private final Update<V, R> update;
    private transient Replace<K, V> decided;
    /** The member's that runs it: Hazelcast initialises every entry processor before it runs it there. */
    private transient MemberContext member = MemberContext.NONE;

    UpdateProcessor(Update<V, R> update) {
        this.update = update;
    }

    Update<V, R> update() {
        return update;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        member = new MemberContext(instance.getUserContext());
    }

    @Override
    public R process(Map.Entry<K, V> entry) {
        Update.Outcome<V, R> outcome = update.apply(entry.getValue(), member);
        if (outcome.write()) {
            decided = Replace.of(outcome.value(), outcome.ttl(), outcome.note());
            decided.store(entry);
        }
        return outcome.result();
    }

    @Override
    public EntryProcessor<K, V, R> getBackupProcessor() {
        @SuppressWarnings("unchecked")
        EntryProcessor<K, V, R> backup = (EntryProcessor<K, V, R>) decided;
        return backup;
    }

    /**
     * Stores a value the owner decided (null removes), with its time to live, on a backup member, and hands that
     * member the owner's note. Hazelcast gives a backup processor its member as it gives any entry processor.
     */
    static class Replace<K, V> implements EntryProcessor<K, V, Object>, HazelcastInstanceAware {

        private final V value;
        private final Duration ttl;
        private final ReplicaNote note;
        private transient MemberContext member = MemberContext.NONE;

        private Replace(V value, Duration ttl, ReplicaNote note) {
            this.value = value;
            this.ttl = ttl;
            this.note = note;
        }

        static <K, V> Replace<K, V> of(V value, Duration ttl, ReplicaNote note) {
            return note == null ? new Replace<>(value, ttl, null) : new Noted<>(value, ttl, note);
        }

        V value() {
            return value;
        }

        Duration ttl() {
            return ttl;
        }

        ReplicaNote note() {
            return note;
        }

        @Override
        public void setHazelcastInstance(HazelcastInstance instance) {
            member = new MemberContext(instance.getUserContext());
        }

        @Override
        public Object process(Map.Entry<K, V> entry) {
            store(entry);
            if (note != null) {
                note.reached(member);
            }
            return null;
        }

        /** The owner's own store: the note is for the others, the owner knows what it decided. */
        void store(Map.Entry<K, V> entry) {
            if (ttl != null && value != null && entry instanceof ExtendedMapEntry<K, V> timed) {
                timed.setValue(value, ttl.toMillis(), TimeUnit.MILLISECONDS);
            } else {
                entry.setValue(value);
            }
        }

        @Override
        public EntryProcessor<K, V, Object> getBackupProcessor() {
            return this;
        }
    }

    /**
     * A replace with a note, in a stream form of its own: a member of the version before, which reads a replace as a
     * value and a time to live, never meets one in the middle of a backup it can read (in a rolling upgrade it fails
     * to read this one, and misses only the note's backup).
     */
    static final class Noted<K, V> extends Replace<K, V> {

        private Noted(V value, Duration ttl, ReplicaNote note) {
            super(value, ttl, note);
        }
    }

    /**
     * Hazelcast's own stream form instead of Java serialization: the update inside is written as Hazelcast writes
     * any object (a sealed update by its own serializer), with no class descriptors per message.
     */
    static final class Serializer implements StreamSerializer<UpdateProcessor<?, ?, ?>> {

        static final int TYPE_ID = 7101;

        @Override
        public int getTypeId() {
            return TYPE_ID;
        }

        @Override
        public void write(ObjectDataOutput out, UpdateProcessor<?, ?, ?> processor) throws IOException {
            out.writeObject(processor.update);
        }

        @Override
        public UpdateProcessor<?, ?, ?> read(ObjectDataInput in) throws IOException {
            Object update = in.readObject();
            if (!(update instanceof Update<?, ?> known)) {
                throw new IOException("an entry update that is not an Update: "
                        + (update == null ? "null" : update.getClass().getName()));
            }
            return new UpdateProcessor<>(known);
        }
    }

    static final class ReplaceSerializer implements StreamSerializer<Replace<?, ?>> {

        static final int TYPE_ID = 7102;

        @Override
        public int getTypeId() {
            return TYPE_ID;
        }

        @Override
        public void write(ObjectDataOutput out, Replace<?, ?> replace) throws IOException {
            out.writeObject(replace.value());
            out.writeLong(replace.ttl() == null ? -1 : replace.ttl().toMillis());
        }

        @Override
        public Replace<?, ?> read(ObjectDataInput in) throws IOException {
            Object value = in.readObject();
            long ttl = in.readLong();
            return Replace.of(value, ttl < 0 ? null : Duration.ofMillis(ttl), null);
        }
    }

    static final class NotedSerializer implements StreamSerializer<Noted<?, ?>> {

        static final int TYPE_ID = 7103;
        private final ReplaceSerializer replace = new ReplaceSerializer();

        @Override
        public int getTypeId() {
            return TYPE_ID;
        }

        @Override
        public void write(ObjectDataOutput out, Noted<?, ?> noted) throws IOException {
            replace.write(out, noted);
            out.writeObject(noted.note());
        }

        @Override
        public Noted<?, ?> read(ObjectDataInput in) throws IOException {
            Replace<?, ?> replaced = replace.read(in);
            Object note = in.readObject();
            if (!(note instanceof ReplicaNote known)) {
                throw new IOException("a backup's note that is not a ReplicaNote: "
                        + (note == null ? "null" : note.getClass().getName()));
            }
            return new Noted<>(replaced.value(), replaced.ttl(), known);
        }
    }
}
