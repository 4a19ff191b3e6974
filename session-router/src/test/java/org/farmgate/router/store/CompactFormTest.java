package org.farmgate.router.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.farmgate.model.HostMeasurements;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.Reservation;
import org.farmgate.model.ReservationBook;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.model.Watcher;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.model.addressbook.EntryInfo;
import org.farmgate.model.addressbook.Folder;
import org.farmgate.router.Loads;
import org.farmgate.router.SessionQuota;
import org.junit.jupiter.api.Test;

/**
 * The compact form: every kind of value it carries comes back equal (and equal to what Java serialization gives back),
 * what it cannot carry it says so, two versions of a record read each other, and no garbled or hostile bytes make
 * anything but {@link CompactForm.Malformed}.
 */
class CompactFormTest {

    private static final Instant AT = Instant.parse("2026-12-07T10:15:30.123456789Z");

    enum Colour { RED, GREEN }

    record Inner(String name, Colour colour) implements Serializable {
    }

    record Kinds(int small, long large, boolean flag, double ratio, Instant at, Duration ttl, String text,
            List<Inner> inners, Set<String> tags, Map<String, Object> fields, TreeMap<String, Integer> sorted,
            EnumMap<Colour, Long> byColour, TreeSet<Long> ordered) implements Serializable {
    }

    record Older(String name, int count) implements Serializable {
    }

    /** The same simple name's length as {@link Older}, so the one's bytes are made the other's by renaming. */
    record Newer(String name, long extra, int count, List<String> notes) implements Serializable {
    }

    record Holder(Object value) implements Serializable {
    }

    record NotShared(String name) {
    }

    record Floating(float ratio) implements Serializable {
    }

    private static final List<Object> VALUES = List.of(
            "", "plain", "é ü ß", "a 😀 emoji pair", Integer.MIN_VALUE, Integer.MAX_VALUE, -1, 0, Long.MIN_VALUE,
            Long.MAX_VALUE, 3.25, Double.NaN, -0.0, Boolean.TRUE, Boolean.FALSE, AT, Instant.ofEpochSecond(-5, 7),
            Duration.ofMillis(-1500), Duration.ofSeconds(86_400, 999_999_999), Colour.GREEN,
            new Inner("x", Colour.RED), new Inner(null, null), List.of(), new ArrayList<>(Arrays.asList(1, null, "b")),
            new HashSet<>(List.of("a", "b")), new TreeSet<>(List.of(3L, 1L, 2L)), new HashMap<>(Map.of("k", 1L)),
            new TreeMap<>(Map.of("b", 2, "a", 1)), kinds(), Loads.node("n1", 4000, 8000), node(20), session(),
            new SessionQuota.Places("alice", new TreeMap<>(Map.of("s1", 100, "s2", 20))), addressBook());

    @Test
    void everyKindComesBackEqualAndAsJavaSerializationGivesIt() throws Exception {
        for (Object value : VALUES) {
            byte[] compact = CompactForm.write(value);
            assertNotNull(compact, () -> "not written: " + value);
            assertTrue(CompactForm.isCompact(compact));
            Object back = CompactForm.read(compact);
            assertEquals(value, back, () -> "value " + value);
            assertEquals(javaRoundTrip(value), back, () -> "as Java serialization gives " + value);
            assertEquals(value.getClass().isRecord() ? value.getClass() : back.getClass(), back.getClass());
        }
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) CompactForm.read(CompactForm.write(new byte[] {1, 2, 3})));
        assertNull(CompactForm.read(CompactForm.write(null)));
    }

    @Test
    void collectionsComeBackAsTheirKindOrAsTheComponentDeclares() {
        Kinds back = (Kinds) CompactForm.read(CompactForm.write(kinds()));
        assertInstanceOf(TreeMap.class, back.sorted());
        assertInstanceOf(EnumMap.class, back.byColour());
        assertInstanceOf(TreeSet.class, back.ordered());
        assertInstanceOf(HashSet.class, CompactForm.read(CompactForm.write(new HashSet<>(Set.of("x")))),
                "a set read where a HashSet is expected (a query's answer)");
        assertInstanceOf(HashMap.class, CompactForm.read(CompactForm.write(Map.of("x", 1))));
        Map<String, Integer> ordered = new LinkedHashMap<>();
        ordered.put("z", 1);
        ordered.put("a", 2);
        ordered.put("m", 3);
        assertEquals(List.of("z", "a", "m"), List.copyOf(((Map<?, ?>) CompactForm.read(CompactForm.write(ordered)))
                .keySet()), "order kept");
    }

    @Test
    void theSharedRecordsAreSmallerThanJavaSerialization() throws IOException {
        for (Object value : List.of(node(0), node(20), session(), addressBook())) {
            int compact = CompactForm.write(value).length;
            int java = javaBytes(value).length;
            assertTrue(compact * 3 < java * 2, value.getClass().getSimpleName() + ": " + compact + " bytes against "
                    + java + " in Java serialization");
        }
    }

    @Test
    void whatItCannotCarryItSaysSo() {
        TreeMap<String, Integer> reversed = new TreeMap<>(Comparator.reverseOrder());
        reversed.put("a", 1);
        Object nested = "deep";
        for (int i = 0; i <= CompactForm.DEEPEST + 1; i++) {
            nested = List.of(nested);
        }
        for (Object value : List.of(new ConcurrentHashMap<>(Map.of("a", 1)), reversed, new BigDecimal("1.5"),
                new Holder(new StringBuilder("x")), new NotShared("x"), List.of("lone \uD800 surrogate"),
                Map.of("k", 1.5f), nested, new LinkedList<>(List.of(1)), EnumSet.of(Colour.RED),
                new Floating(1))) {
            assertNull(CompactForm.write(value), () -> "written: " + value);
        }
    }

    @Test
    void aComponentOneVersionLacksReadsAsNothingAndOneItDoesNotKnowIsDropped() {
        Newer newer = (Newer) CompactForm.read(renamed(CompactForm.write(new Older("kept", 7)), "Older", "Newer"));
        assertEquals(new Newer("kept", 0, 7, null), newer);
        Older older = (Older) CompactForm.read(renamed(CompactForm.write(new Newer("kept", 9, 7, List.of("x"))),
                "Newer", "Older"));
        assertEquals(new Older("kept", 7), older);
    }

    @Test
    void onlyTheProjectsRecordsAndEnumsAreMade() {
        String[] refused = {"java.lang.Thread", "..java.lang.Thread", "org.farmgate.router.store.CompactForm",
            "org.farmgate.router.store.NoSuchClass", "org.farmgate.router.store.CompactFormTest$NotShared"};
        for (String name : refused) {
            byte[] bytes = named(CompactForm.RECORD, name);
            CompactForm.Malformed error = assertThrows(CompactForm.Malformed.class, () -> CompactForm.read(bytes));
            assertTrue(error.getMessage().contains(name), error.getMessage());
        }
        byte[] enumAsRecord = named(CompactForm.RECORD, "org.farmgate.router.store.CompactFormTest$Colour");
        assertTrue(assertThrows(CompactForm.Malformed.class, () -> CompactForm.read(enumAsRecord)).getMessage()
                .contains("is not a record"));
        byte[] recordAsEnum = named(CompactForm.ENUM, "org.farmgate.router.store.CompactFormTest$Inner");
        assertTrue(assertThrows(CompactForm.Malformed.class, () -> CompactForm.read(recordAsEnum)).getMessage()
                .contains("is not an enum"));
    }

    /** A value of class 0, named {@code name} for the first time, with no components: a record's or an enum's. */
    private static byte[] named(int tag, String name) {
        byte[] nameBytes = name.replaceFirst("^org\\.farmgate\\.", "").getBytes(StandardCharsets.UTF_8);
        return concat(new byte[] {CompactForm.MAGIC, 1, (byte) tag, 0, (byte) nameBytes.length}, nameBytes,
                new byte[] {0});
    }

    @Test
    void aCountTheBytesCannotHoldIsRefusedBeforeAnythingIsMade() {
        byte[] huge = {CompactForm.MAGIC, 1, CompactForm.LIST, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07};
        assertTrue(assertThrows(CompactForm.Malformed.class, () -> CompactForm.read(huge)).getMessage()
                .contains("a count of"));
        byte[] deep = new byte[3 + 2 * (CompactForm.DEEPEST + 2)];
        deep[0] = CompactForm.MAGIC;
        deep[1] = 1;
        for (int i = 2; i + 1 < deep.length; i += 2) {
            deep[i] = CompactForm.LIST;
            deep[i + 1] = 1;
        }
        assertTrue(assertThrows(CompactForm.Malformed.class, () -> CompactForm.read(deep)).getMessage()
                .contains("nested deeper"));
        assertThrows(CompactForm.Malformed.class, () -> CompactForm.read(new byte[] {(byte) 0xAC, (byte) 0xED}));
        assertThrows(CompactForm.Malformed.class, () -> CompactForm.read(new byte[] {CompactForm.MAGIC, 2, 0}));
    }

    @Test
    void everyCutAndEveryGarbledByteFailsAsMalformedOrReadsAsSomeValue() {
        for (Object value : List.of(node(3), session(), kinds())) {
            byte[] bytes = CompactForm.write(value);
            for (int length = 0; length < bytes.length; length++) {
                byte[] cut = Arrays.copyOf(bytes, length);
                assertThrows(CompactForm.Malformed.class, () -> CompactForm.read(cut), () -> "cut at " + cut.length);
            }
            for (int at = 0; at < bytes.length; at++) {
                for (int flip : new int[] {0x01, 0x80, 0xFF}) {
                    byte[] garbled = bytes.clone();
                    garbled[at] ^= (byte) flip;
                    try {
                        CompactForm.read(garbled);
                    } catch (CompactForm.Malformed expected) {
                        // as it should: anything else is a fault of the reader
                    }
                }
            }
        }
    }

    private static Kinds kinds() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("port", 22);
        fields.put("missing", null);
        fields.put("hops", List.of(Map.of("host", "b", "port", 2222L)));
        fields.put("ratio", 0.5);
        EnumMap<Colour, Long> byColour = new EnumMap<>(Colour.class);
        byColour.put(Colour.GREEN, 5L);
        return new Kinds(-3, 1L << 40, true, 1.5, AT, Duration.ofSeconds(30), "text",
                List.of(new Inner("a", Colour.RED), new Inner("b", Colour.GREEN)), Set.of("x", "y"), fields,
                new TreeMap<>(Map.of("s2", 2, "s1", 1)), byColour, new TreeSet<>(Set.of(9L, 4L)));
    }

    static NodeLoad node(int reservations) {
        List<Reservation> held = new ArrayList<>();
        for (int i = 0; i < reservations; i++) {
            held.add(new Reservation("3f0c6a53-9a8e-4c1b-8d2e-" + String.format("%012d", i),
                    Protocol.values()[i % 3], 100 + i, i % 2 == 0, AT.plusSeconds(i)));
        }
        NodeLoad base = Loads.node("node-1", 16_000, 12_000);
        return new NodeLoad(base.nodeId(), base.address(), base.limits(), base.costModel(),
                new HostMeasurements(32_000, 12_000, 800, 120, true, 8, 1.25, AT, "boot-id", 2),
                ReservationBook.of(held), false, AT);
    }

    private static SessionInfo session() {
        return new SessionInfo("3f0c6a53-9a8e-4c1b-8d2e-000000000001", Protocol.RDP, SessionStatus.ACTIVE, AT,
                "desktop-12.farm.example", 3389, "alice", "alice", "oidc:alice", 1, "node-2", 143, null, null,
                List.of(new Watcher("bob", "share-1", true, AT)), "alice@example.org", 4, true);
    }

    private static AddressBook addressBook() {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("hostname", "db-1");
        fields.put("port", 5432);
        fields.put("tags", List.of("db", "prod"));
        EntryInfo entry = new EntryInfo("db-1", fields);
        return new AddressBook(List.of(new Folder("servers", "shared", "servers", "the servers", List.of("ops"), true,
                false, List.of(entry), true, null)), AT, null);
    }

    private static byte[] renamed(byte[] bytes, String from, String to) {
        byte[] was = from.getBytes(StandardCharsets.UTF_8);
        byte[] now = to.getBytes(StandardCharsets.UTF_8);
        byte[] copy = bytes.clone();
        for (int at = 0; at + was.length <= copy.length; at++) {
            if (Arrays.equals(copy, at, at + was.length, was, 0, was.length)) {
                System.arraycopy(now, 0, copy, at, now.length);
                return copy;
            }
        }
        throw new AssertionError(from + " not in the bytes");
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    private static byte[] javaBytes(Object value) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        return bytes.toByteArray();
    }

    private static Object javaRoundTrip(Object value) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(javaBytes(value)))) {
            return in.readObject();
        }
    }
}
