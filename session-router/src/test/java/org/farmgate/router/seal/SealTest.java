package org.farmgate.router.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.farmgate.router.SessionQuota;
import org.farmgate.router.store.CompactForm;
import org.junit.jupiter.api.Test;

/** The bytes a seal covers: the compact form, Java serialization where it cannot carry a value, and both opened. */
class SealTest {

    private static final String MAP = "farmgate.test";
    private final Seal seal = new Seal(List.of("a-cluster-key-of-thirty-two-byte".getBytes()));
    private final SessionQuota.Places places = new SessionQuota.Places("alice", new TreeMap<>(Map.of("s1", 100)));

    @Test
    void aSharedRecordIsSealedInTheCompactForm() {
        Sealed sealed = seal.sign(MAP, "alice", 1, places);
        assertTrue(CompactForm.isCompact(sealed.payload()));
        assertEquals(places, seal.openSigned(sealed, MAP, "alice"));
    }

    @Test
    void aValueTheCompactFormCannotCarryIsSealedAsJavaSerializationAndOpens() {
        ConcurrentHashMap<String, Integer> concurrent = new ConcurrentHashMap<>(Map.of("a", 1));
        Sealed sealed = seal.sign(MAP, "k", 1, concurrent);
        assertEquals((byte) 0xAC, sealed.payload()[0]);
        assertEquals(concurrent, seal.openSigned(sealed, MAP, "k"));
    }

    @Test
    void aRecordAnEarlierVersionSealedInJavaSerializationStillOpens() throws IOException {
        Sealed earlier = seal.tag(MAP, "alice", 1, java(places));
        assertEquals(places, seal.openSigned(earlier, MAP, "alice"));
        assertEquals(places, seal.open(earlier, MAP, "alice"));
    }

    @Test
    void compactBytesThatDoNotReadOpenAsNothing() {
        Sealed garbled = seal.tag(MAP, "k", 1, new byte[] {'F', 1, 99});
        assertNull(seal.openSigned(garbled, MAP, "k"));
    }

    private static byte[] java(Serializable value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }
}
