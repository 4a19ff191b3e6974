package org.farmgate.router.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.Update;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Records sealed with the cluster key: what opens, what does not, and a key rotation. */
class SealedMapTest {

    private static final byte[] KEY_A = "a-cluster-key-of-thirty-two-byte".getBytes();
    private static final byte[] KEY_B = "another-cluster-key-32-bytes-lon".getBytes();

    private final LocalSharedMap<String, Object> raw = new LocalSharedMap<>();
    private final List<String> rejected = new ArrayList<>();
    private SealedMap<String> map;

    @BeforeEach
    void seal() {
        Seal seal = new Seal(List.of(KEY_A));
        Seal.install(seal);
        map = new SealedMap<>("farmgate.test", raw, seal, rejected::add);
    }

    @Test
    void whatASealHolderWritesOpens() {
        join(map.set("k", "admin"));
        assertEquals("admin", join(map.get("k")));
        assertEquals(List.of(), rejected);
    }

    @Test
    void aRecordWithoutAValidSealIsAbsentAndCounted() {
        join(raw.set("plain", "admin")); // a stranger's record, unsealed
        join(raw.set("forged", new Sealed("farmgate.test", "forged", new byte[] {1, 2}, new byte[32])));
        join(raw.set("other-key", new Seal(List.of(KEY_B)).seal("farmgate.test", "other-key", "admin")));
        assertNull(join(map.get("plain")));
        assertNull(join(map.get("forged")));
        assertNull(join(map.get("other-key")), "sealed with a key this cluster does not have");
        assertEquals(List.of("farmgate.test", "farmgate.test", "farmgate.test"), rejected);
    }

    @Test
    void aRecordCopiedUnderAnotherKeyOrIntoAnotherMapDoesNotOpen() {
        join(map.set("viewer-token", "viewer"));
        join(map.set("admin-token", "admin"));
        Object admin = join(raw.get("admin-token"));
        join(raw.set("viewer-token", admin)); // the admin record copied over the viewer's key
        assertNull(join(map.get("viewer-token")));
        SealedMap<String> elsewhere = new SealedMap<>("farmgate.other", raw, new Seal(List.of(KEY_A)), rejected::add);
        assertNull(join(elsewhere.get("admin-token")), "sealed for another map");
    }

    @Test
    void updatesAndQueriesSeeOnlySealedRecordsAndSealWhatTheyStore() {
        join(map.set("a", "1"));
        join(raw.set("b", "2")); // unsealed: an update sees it as absent, and replaces it with a sealed value
        assertEquals("none", join(map.update("b", new Append())));
        assertEquals("x", join(map.get("b")));
        assertEquals("1", join(map.update("a", new Append())));
        assertEquals(List.of("1x", "x"), sorted(join(map.query(new All()))));
        assertNull(join(map.putIfAbsent("c", "3")));
        assertEquals("3", join(map.putIfAbsent("c", "4")));
    }

    @Test
    void duringARotationTheOldKeyStillOpensAndTheNewOneSeals() {
        join(map.set("k", "old"));
        Seal rotated = new Seal(List.of(KEY_B, KEY_A));
        SealedMap<String> during = new SealedMap<>("farmgate.test", raw, rotated, rejected::add);
        assertEquals("old", join(during.get("k")));
        join(during.set("k2", "new"));
        assertNull(join(map.get("k2")), "a node still on the old key alone cannot open the new seal");
        SealedMap<String> after = new SealedMap<>("farmgate.test", raw, new Seal(List.of(KEY_B)), rejected::add);
        assertEquals("new", join(after.get("k2")));
        assertNull(join(after.get("k")), "once the old key is dropped, its records no longer open");
    }

    @Test
    void anOwnerAppliesOnlyUpdatesSignedWithTheClusterKey() {
        // A member without the key sends an update to an owner that has it: were it applied, the owner would seal
        // the stranger's value with the real key.
        Seal stranger = new Seal(List.of(KEY_B));
        SealedUpdate<String, String> unsigned = new SealedUpdate<>("farmgate.test", "k",
                stranger.seal(SealedUpdate.updates("farmgate.test"), "k", new Append()));
        assertNull(join(raw.update("k", unsigned)));
        assertNull(join(map.get("k")), "nothing was stored");
        assertNull(join(raw.get("k")));
        // and a signed update is not a value: it does not open as one
        Object signed = new Seal(List.of(KEY_A)).seal(SealedUpdate.updates("farmgate.test"), "k", new Append());
        join(raw.set("k", signed));
        assertNull(join(map.get("k")));
    }

    /** Appends "x", answering what was there ("none" when absent). */
    private record Append() implements Update<String, String> {
        @Override
        public Outcome<String, String> apply(String current) {
            return Outcome.store((current == null ? "" : current) + "x", current == null ? "none" : current);
        }
    }

    private record All() implements Query<String, String> {
        @Override
        public boolean matches(String value) {
            return true;
        }

        @Override
        public String project(String value) {
            return value;
        }
    }

    private static List<String> sorted(List<String> values) {
        List<String> copy = new ArrayList<>(values);
        copy.sort(null);
        return copy;
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }
}
