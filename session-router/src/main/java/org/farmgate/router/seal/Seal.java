package org.farmgate.router.seal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.farmgate.router.store.CompactForm;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Voucher;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals values with the cluster key and opens them again: HMAC-SHA256 over the map's name, the key, the revision and
 * the value's bytes, so that a record moved under another key or into another map, or given another revision, does
 * not open. The first key seals; every key opens, which lets the cluster key rotate without a cluster stop.
 *
 * <p>The bytes sealed are the value's {@link CompactForm} (its Java serialization where that form cannot carry it),
 * kept as they are: no canonical form is needed, and they are only read after the proof checked, the compact form
 * making nothing but the project's records and enums and plain JDK values, Java's through a filter that admits the
 * project's and the JDK's classes.
 * Values that opened are remembered by their proof, so a record read often (a token, the address book through the
 * near cache) is checked and deserialised once.
 *
 * <p>Updates and queries run on whichever member owns an entry and take the seal that member lends them
 * ({@link SealedMap#lend}), since a key must never travel with them.
 */
public final class Seal {

    private static final String ALGORITHM = "HmacSHA256";
    private static final int REMEMBERED = 4096;
    private static final byte[] NOTHING = new byte[0];
    private static final ObjectInputFilter CLASSES = ObjectInputFilter.Config.createFilter(
            "org.farmgate.**;java.**;!*");

    /** Initialised once per key and cloned per use: finding a provider and keying a Mac was most of a seal. */
    private final List<Mac> keys;
    private final Map<String, Object> opened = new ConcurrentHashMap<>();

    public Seal(List<byte[]> keys) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a seal needs at least one key");
        }
        this.keys = keys.stream().map(Seal::keyed).toList();
    }

    /** The seal {@code member} lends; a member without one opens nothing. */
    static Seal lentBy(MemberContext member) {
        Seal seal = member.get(Seal.class);
        if (seal == null) {
            throw new IllegalStateException("no cluster key on this member");
        }
        return seal;
    }

    public Sealed seal(String map, String key, long revision, Serializable value) {
        Sealed sealed = sign(map, key, revision, value);
        // The member that owns an entry updates it next: it opens what it sealed without deserialising it again.
        remember(memo(map, key, revision, sealed.mac()), value);
        return sealed;
    }

    /**
     * Seals something that is opened once and never read again (a signed update), so it is not remembered: each
     * update's order would otherwise push out of the memo the values that are read again and again.
     */
    public Sealed sign(String map, String key, long revision, Serializable value) {
        byte[] payload = serialize(value);
        return new Sealed(map, key, revision, payload, mac(keys.get(0), map, key, revision, payload));
    }

    /**
     * The value, when {@code sealed} was made for this map and key with one of the keys; null otherwise (a record
     * forged, garbled, or copied from elsewhere is treated as absent).
     */
    @SuppressWarnings("unchecked")
    public <V> V open(Sealed sealed, String map, String key) {
        if (!addressed(sealed, map, key)) {
            return null;
        }
        String memo = memo(map, key, sealed.revision(), sealed.mac());
        Object known = opened.get(memo);
        if (known != null) {
            return (V) known;
        }
        V value = checked(sealed, map, key);
        if (value != null) {
            remember(memo, value);
        }
        return value;
    }

    /**
     * What the owner of {@code record} answers a query with: {@code project} of the record's value, sealed under
     * {@code label} (the map's name and the query's: never a record's name, so a projection opens as nothing else),
     * the record's key and its revision, so the asker checks it as it would the record, freshness included. Each
     * heartbeat reads many nodes' entries (every one, or a sample): the owner projects and seals a revision once, not
     * once per asker, and the askers check a summary's few hundred bytes, not an entry with every reservation in it.
     * Null when the record does not open here.
     */
    public <V> Sealed projection(Sealed record, String map, String label, Function<V, Serializable> project) {
        V value = open(record, map, record.key());
        if (value == null) {
            return null;
        }
        String memo = "projection\0" + label + '\0' + memo(map, record.key(), record.revision(), record.mac());
        Object known = opened.get(memo);
        if (known instanceof Sealed sealed) {
            return sealed;
        }
        Sealed sealed = sign(label, record.key(), record.revision(), project.apply(value));
        remember(memo, sealed);
        return sealed;
    }

    /**
     * Seals bytes that are only ever checked, never opened as a value ({@link #authentic}): a fence an owner tells
     * the members keeping its backups.
     */
    Sealed tag(String map, String key, long revision, byte[] payload) {
        return new Sealed(map, key, revision, payload.clone(), mac(keys.get(0), map, key, revision, payload));
    }

    /** Whether {@code sealed} carries the proof, under one of the keys, of its own map, key, revision and bytes. */
    boolean authentic(Sealed sealed) {
        if (sealed == null || sealed.map() == null || sealed.key() == null || sealed.payload() == null
                || sealed.mac() == null) {
            return false;
        }
        boolean valid = false;
        for (Mac candidate : keys) {
            valid |= MessageDigest.isEqual(mac(candidate, sealed.map(), sealed.key(), sealed.revision(),
                    sealed.payload()), sealed.mac());
        }
        return valid;
    }

    /**
     * The owner's word, for another node, that it decided an update of {@code map}'s {@code key} saying
     * {@code statement} at {@code revision}: a tag under a name no record or order is sealed under, over the key and
     * the statement, so that it vouches for nothing else.
     */
    Voucher vouch(String map, String key, String statement, long revision) {
        Sealed tag = tag(vouchers(map), vouched(key, statement), revision, NOTHING);
        return new Voucher(map, key, statement, revision, tag.mac());
    }

    /** Whether {@code voucher} was made by {@link #vouch} with one of the keys, for exactly what it says. */
    boolean vouches(Voucher voucher) {
        return voucher != null && voucher.map() != null && voucher.key() != null && voucher.statement() != null
                && authentic(new Sealed(vouchers(voucher.map()), vouched(voucher.key(), voucher.statement()),
                        voucher.revision(), NOTHING, voucher.proof()));
    }

    private static String vouchers(String map) {
        return map + "#vouched";
    }

    /** Length first: a key may hold any character, and no key and statement may read as another pair. */
    private static String vouched(String key, String statement) {
        return key.length() + ":" + key + statement;
    }

    /** {@link #open} for what {@link #sign} made: checked every time, never remembered. */
    public <V> V openSigned(Sealed sealed, String map, String key) {
        return addressed(sealed, map, key) ? checked(sealed, map, key) : null;
    }

    private static boolean addressed(Sealed sealed, String map, String key) {
        return sealed != null && map.equals(sealed.map()) && key.equals(sealed.key()) && sealed.payload() != null
                && sealed.mac() != null;
    }

    /** {@code sealed}, already found addressed to {@code map} and {@code key}, opened if its proof holds. */
    @SuppressWarnings("unchecked")
    private <V> V checked(Sealed sealed, String map, String key) {
        return authentic(sealed) ? (V) deserialize(sealed.payload()) : null;
    }

    /** Values are immutable records: what opened (or was sealed) under a proof is what that proof stands for. */
    private void remember(String memo, Object value) {
        if (opened.size() >= REMEMBERED) {
            opened.clear();
        }
        opened.put(memo, value);
    }

    /**
     * What a proof stands for: the revision is in it because callers read it from the record, not from the memo (a
     * copy with the real proof and another revision must be checked, and fail).
     */
    private static String memo(String map, String key, long revision, byte[] mac) {
        return map + '\0' + key + '\0' + revision + '\0' + Base64.getEncoder().encodeToString(mac);
    }

    private static Mac keyed(byte[] key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key.clone(), ALGORITHM));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is part of every JDK", e);
        }
    }

    private static byte[] mac(Mac keyed, String map, String entryKey, long revision, byte[] payload) {
        Mac mac;
        try {
            mac = (Mac) keyed.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException("the JDK's HMAC-SHA256 clones", e);
        }
        mac.update(map.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
        mac.update(entryKey.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) 0);
        for (int shift = 56; shift >= 0; shift -= 8) {
            mac.update((byte) (revision >>> shift));
        }
        return mac.doFinal(payload);
    }

    /** The compact form where it can carry the value; Java serialization for what it cannot (rare values). */
    private static byte[] serialize(Serializable value) {
        byte[] compact = CompactForm.write(value);
        if (compact != null) {
            return compact;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("not serialisable: " + value.getClass().getName(), e);
        }
        return bytes.toByteArray();
    }

    private static Object deserialize(byte[] payload) {
        if (CompactForm.isCompact(payload)) {
            try {
                return CompactForm.read(payload);
            } catch (CompactForm.Malformed e) {
                return null;
            }
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(payload))) {
            in.setObjectInputFilter(CLASSES);
            return in.readObject();
        } catch (IOException | ClassNotFoundException e) {
            return null;
        }
    }
}
