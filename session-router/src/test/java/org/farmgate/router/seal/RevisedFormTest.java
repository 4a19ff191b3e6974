package org.farmgate.router.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.hazelcast.config.SerializationConfig;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.farmgate.router.SessionQuota;
import org.junit.jupiter.api.Test;

/** An owner's answer as it travels: its result in the compact form, or as Hazelcast writes an object it cannot carry. */
class RevisedFormTest {

    private final InternalSerializationService serialization = serialization();

    @Test
    void aResultTheCompactFormCarriesComesBackEqual() {
        SessionQuota.Places places = new SessionQuota.Places("alice", new TreeMap<>(Map.of("s1", 100)));
        Revised<?> back = roundTrip(new Revised<>(places, 42, true, true, null));
        assertEquals(places, back.result());
        assertEquals(42, back.revision());
        assertEquals(true, back.present() && back.fenced());
        assertNull(back.refused());
    }

    @Test
    void aResultItCannotCarryGoesAsAnObject() {
        ConcurrentHashMap<String, Integer> concurrent = new ConcurrentHashMap<>(Map.of("a", 1));
        assertEquals(concurrent, roundTrip(new Revised<>(concurrent, 1, false, false, null)).result());
    }

    @Test
    void aRefusalComesBackWithoutAResult() {
        Revised<?> back = roundTrip(Revised.refused("a copy sent again"));
        assertNull(back.result());
        assertEquals("a copy sent again", back.refused());
    }

    private Revised<?> roundTrip(Revised<?> revised) {
        return serialization.toObject(serialization.toData(revised));
    }

    private static InternalSerializationService serialization() {
        SerializationConfig config = new SerializationConfig();
        SealSerializers.serializers().forEach(config::addSerializerConfig);
        return new DefaultSerializationServiceBuilder().setConfig(config).build();
    }
}
