package org.farmgate.router.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.farmgate.router.store.Lengths;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedStateUnavailableException;
import org.farmgate.router.store.Update;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Records sealed with the cluster key: what opens, what does not, a key rotation, and copies put back. */
class SealedMapTest {

    private static final byte[] KEY_A = "a-cluster-key-of-thirty-two-byte".getBytes();
    private static final byte[] KEY_B = "another-cluster-key-32-bytes-lon".getBytes();

    private final List<String> rejected = new ArrayList<>();
    private final Fences fences = new Fences();
    /** The member that owns the entries, as it lends its seal to the updates and queries it runs. */
    private final MemberContext owner = new MemberContext(new java.util.concurrent.ConcurrentHashMap<>());
    private final LocalSharedMap<String, Object> raw = new LocalSharedMap<>(java.time.Clock.systemUTC(), owner);
    private SealedMap<String> map;

    @BeforeEach
    void seal() {
        Seal seal = new Seal(List.of(KEY_A));
        SealedMap.lend(owner, seal, fences);
        map = sealed("farmgate.test", seal, fences);
    }

    private SealedMap<String> sealed(String name, Seal seal, Fences known) {
        return sealed(name, seal, known, SealedMap.Policy.DEFAULT);
    }

    private SealedMap<String> sealed(String name, Seal seal, Fences known, SealedMap.Policy policy) {
        return new SealedMap<>(name, raw, seal, known, policy, (map, reason) -> rejected.add(map + ":" + reason));
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
        join(raw.set("forged", new Sealed("farmgate.test", "forged", 1, new byte[] {1, 2}, new byte[32])));
        join(raw.set("other-key", new Seal(List.of(KEY_B)).seal("farmgate.test", "other-key", 1, "admin")));
        assertNull(join(map.get("plain")));
        assertNull(join(map.get("forged")));
        assertNull(join(map.get("other-key")), "sealed with a key this cluster does not have");
        assertEquals(List.of("farmgate.test:forged", "farmgate.test:forged", "farmgate.test:forged"), rejected);
    }

    @Test
    void aRecordCopiedUnderAnotherKeyOrIntoAnotherMapDoesNotOpen() {
        join(map.set("viewer-token", "viewer"));
        join(map.set("admin-token", "admin"));
        Object admin = join(raw.get("admin-token"));
        join(raw.set("viewer-token", admin)); // the admin record copied over the viewer's key
        assertNull(join(map.get("viewer-token")));
        SealedMap<String> elsewhere = sealed("farmgate.other", new Seal(List.of(KEY_A)), fences);
        assertNull(join(elsewhere.get("admin-token")), "sealed for another map");
    }

    @Test
    void updatesAndQueriesSeeOnlySealedRecordsAndSealWhatTheyStore() {
        join(map.set("a", "1"));
        join(raw.set("b", "2")); // unsealed: an update sees it as absent, and replaces it with a sealed value
        assertEquals("none", join(map.update("b", new Append())));
        assertEquals("x", join(map.get("b")));
        assertEquals("1", join(map.update("a", new Append())));
        assertEquals(List.of("1x", "x"), sorted(join(map.query(Query.<String>all()))));
        assertNull(join(map.putIfAbsent("c", "3")));
        assertEquals("3", join(map.putIfAbsent("c", "4")));
    }

    @Test
    void duringARotationTheOldKeyStillOpensAndTheNewOneSeals() {
        join(map.set("k", "old"));
        Seal rotated = new Seal(List.of(KEY_B, KEY_A));
        owner.lend(rotated); // owners seal what they store: this one is at the rotation's third stage
        SealedMap<String> during = sealed("farmgate.test", rotated, fences);
        assertEquals("old", join(during.get("k")));
        join(during.set("k2", "new"));
        assertNull(join(map.get("k2")), "a node still on the old key alone cannot open the new seal");
        SealedMap<String> after = sealed("farmgate.test", new Seal(List.of(KEY_B)), fences);
        assertEquals("new", join(after.get("k2")));
        assertNull(join(after.get("k")), "once the old key is dropped, its records no longer open");
    }

    @Test
    void anOwnerAppliesOnlyUpdatesSignedWithTheClusterKey() {
        // A member without the key sends an update to an owner that has it: were it applied, the owner would seal
        // the stranger's value with the real key.
        Seal stranger = new Seal(List.of(KEY_B));
        SealedUpdate<String, String> unsigned = new SealedUpdate<>("farmgate.test", "k",
                stranger.seal(SealedUpdate.updates("farmgate.test"), "k", fences.clock().next(0), order()));
        assertNull(join(raw.update("k", unsigned)));
        assertNull(join(map.get("k")), "nothing was stored");
        assertNull(join(raw.get("k")));
        // and a signed update is not a value: it does not open as one
        Object signed = new Seal(List.of(KEY_A)).seal(SealedUpdate.updates("farmgate.test"), "k",
                fences.clock().next(0), order());
        join(raw.set("k", signed));
        assertNull(join(map.get("k")));
    }

    @Test
    void aRecordGivenAnotherRevisionDoesNotOpen() {
        join(map.set("k", "admin"));
        Sealed real = (Sealed) join(raw.get("k"));
        join(raw.set("k", new Sealed(real.map(), real.key(), real.revision() + 1_000_000, real.payload(),
                real.mac())));
        assertNull(join(map.get("k")), "a copy made to look newer than the write that replaces it");
    }

    /** The attack in one map: a copy taken before a change and put back after it grants nothing. */
    @Test
    void aCopyPutBackAfterAChangeOrARemovalIsNotBelieved() {
        join(map.set("token", "admin"));
        Object before = join(raw.get("token"));
        join(map.set("token", "viewer")); // narrowed
        join(raw.set("token", before));
        assertNull(join(map.get("token")));
        assertEquals(List.of(), join(map.query(Query.<String>all())), "nor in a query");

        join(map.set("share", "live"));
        Object live = join(raw.get("share"));
        assertEquals("live", join(map.remove("share"))); // revoked
        join(raw.set("share", live));
        assertNull(join(map.get("share")));
        assertNull(join(map.remove("share")), "spending it again finds nothing");
        assertEquals(List.of("farmgate.test:replayed", "farmgate.test:replayed", "farmgate.test:replayed"), rejected);
        join(map.set("share", "again")); // a new record under the key is believed
        assertEquals("again", join(map.get("share")));
    }

    @Test
    void anUpdateIsNotDecidedOnACopyPutBackUnlessItCarriesTheTruth() {
        assertEquals("none", join(map.update("places", new Append())));
        Object one = join(raw.get("places"));
        assertEquals("x", join(map.update("places", new Append())));
        join(raw.set("places", one));
        CompletionException refused = assertThrows(CompletionException.class,
                () -> join(map.update("places", new Append())));
        assertInstanceOf(SharedStateUnavailableException.class, refused.getCause());
        assertSame(one, join(raw.get("places")), "nothing was written on the copy");
        assertEquals("truth", join(map.update("places", new Truth())), "an update that knows the whole entry heals it");
        assertEquals("truth", join(map.get("places")));
    }

    @Test
    void whereAbsenceGrantsMoreAnEntryDeletedBehindTheNodesBackIsNotDecidedOn() {
        SealedMap<String> places = sealed("farmgate.places", new Seal(List.of(KEY_A)), fences,
                new SealedMap.Policy(true, null, true));
        join(places.update("alice", new Append()));
        join(raw.remove("alice")); // a stranger's delete: alice would start from no place at all
        assertThrows(CompletionException.class, () -> join(places.update("alice", new Append())));
        assertNull(join(raw.get("alice")));
        join(places.remove("alice")); // a node's own removal is a write like any other
        assertEquals("none", join(places.update("alice", new Append())));
    }

    @Test
    void aNodeDisbelievesACopyOnlyOnceItHeardOfTheWriteThatReplacedIt() {
        Fences other = new Fences();
        SealedMap<String> elsewhere = sealed("farmgate.test", new Seal(List.of(KEY_A)), other);
        join(map.set("k", "admin"));
        Object before = join(raw.get("k"));
        join(map.set("k", "viewer"));
        join(raw.set("k", before));
        assertEquals("admin", join(elsewhere.get("k")), "not told: the window the fence's delivery leaves");
        fences.snapshot().forEach(other::learn);
        assertNull(join(elsewhere.get("k")));
        fences.publishTo(other::learn);
        join(map.set("k2", "admin"));
        Object copy = join(raw.get("k2"));
        join(map.remove("k2"));
        join(raw.set("k2", copy));
        assertNull(join(elsewhere.get("k2")), "told as it happens");
    }

    /**
     * A node's reservations and a user's places are decided by their owner: a write's fence goes to no other node,
     * yet a copy put back is refused to a node that never heard of the write, since the owner holds to its own.
     */
    @Test
    void whereTheOwnerDecidesTheFenceStaysWithItAndStillStopsACopyPutBack() {
        List<Fences.Fence> told = new ArrayList<>();
        Fences writerKnows = new Fences();
        writerKnows.publishTo(told::add);
        SealedMap<String> writer = sealed("farmgate.places", new Seal(List.of(KEY_A)), writerKnows,
                new SealedMap.Policy(true, null, true, true));
        SealedMap<String> stranger = sealed("farmgate.places", new Seal(List.of(KEY_A)), new Fences(),
                new SealedMap.Policy(true, null, true, true));
        join(writer.update("alice", new Append()));
        Object one = join(raw.get("alice"));
        join(writer.update("alice", new Append()));
        assertEquals(List.of(), told, "no fence on the event bus");
        assertEquals(((Sealed) join(raw.get("alice"))).revision(), writerKnows.floor("farmgate.places", "alice"),
                "the writer holds to its own write");

        join(raw.set("alice", one));
        assertEquals("x", join(stranger.get("alice")), "a read elsewhere believes it: advice, checked by the owner");
        CompletionException refused = assertThrows(CompletionException.class,
                () -> join(stranger.update("alice", new Append())));
        assertInstanceOf(SharedStateUnavailableException.class, refused.getCause());
        assertSame(one, join(raw.get("alice")), "nothing was decided on the copy");

        join(raw.remove("alice")); // a stranger's delete: alice would start from no place at all
        assertThrows(CompletionException.class, () -> join(stranger.update("alice", new Append())));
        assertEquals("truth", join(stranger.update("alice", new Truth())), "the truth still heals it");
        assertEquals(List.of(), told);
    }

    /** What an owner tells its backups is believed there only under the cluster key, and only as sent. */
    @Test
    void aReplicaLearnsOnlyAFenceSealedWithTheClusterKey() {
        Fences.Fence fence = new Fences.Fence("farmgate.places", "alice", fences.clock().next(0), true, 0);
        Fences replicaKnows = new Fences();
        MemberContext replica = SealedMap.lend(new MemberContext(new java.util.concurrent.ConcurrentHashMap<>()),
                new Seal(List.of(KEY_A)), replicaKnows);

        FenceNote.of(new Seal(List.of(KEY_B)), fence).reached(replica);
        Sealed forged = FenceNote.of(new Seal(List.of(KEY_A)), fence).signed();
        new FenceNote(new Sealed(forged.map(), forged.key(), forged.revision() + 1, forged.payload(), forged.mac()))
                .reached(replica);
        new FenceNote(new Sealed("farmgate.places", forged.key(), forged.revision(), forged.payload(), forged.mac()))
                .reached(replica);
        new FenceNote(null).reached(replica);
        assertNull(replicaKnows.of("farmgate.places", "alice"), "another key, a changed revision, another name");

        FenceNote.of(new Seal(List.of(KEY_A)), fence).reached(replica);
        assertEquals(fence, replicaKnows.of("farmgate.places", "alice"));
        FenceNote.of(new Seal(List.of(KEY_A)), new Fences.Fence("farmgate.places", "alice", fence.revision() - 1,
                false, 0)).reached(replica);
        assertEquals(fence, replicaKnows.of("farmgate.places", "alice"), "an older note sent again changes nothing");
    }

    /** The benchmark's false alarm: a write's fence overtook the answer of a read sent before it. */
    @Test
    void aFenceHeardWhileAReadIsOnItsWayDoesNotMakeItsAnswerAReplay() {
        join(map.set("k", "v1"));
        java.util.concurrent.CompletableFuture<Object> inFlight = new java.util.concurrent.CompletableFuture<>();
        @SuppressWarnings("unchecked")
        org.farmgate.router.store.SharedMap<String, Object> slow = (org.farmgate.router.store.SharedMap<String, Object>)
                java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {org.farmgate.router.store.SharedMap.class}, (proxy, method, args) ->
                                method.getName().equals("get") ? inFlight : method.invoke(raw, args));
        SealedMap<String> reader = new SealedMap<>("farmgate.test", slow, new Seal(List.of(KEY_A)), fences,
                SealedMap.Policy.DEFAULT, (m, reason) -> rejected.add(m + ":" + reason));
        Object current = join(raw.get("k"));
        CompletionStage<String> read = reader.get("k"); // sent now, answered after the next write's fence
        join(map.set("k", "v2"));
        inFlight.complete(current);
        assertEquals("v1", join(read), "the latest value when it was read");
        assertEquals(List.of(), rejected);
        assertEquals("v2", join(map.get("k")));
    }

    /** Two nodes' clocks issue the same revision in the same millisecond: the same update from each is applied. */
    @Test
    void theSameUpdateFromTwoSendersAtTheSameRevisionIsAppliedTwice() {
        Seal seal = new Seal(List.of(KEY_A));
        long revision = fences.clock().next(0);
        for (int sender = 0; sender < 2; sender++) {
            SealedUpdate<String, String> order = new SealedUpdate<>("farmgate.test", "k",
                    seal.sign(SealedUpdate.updates("farmgate.test"), "k", revision, order()));
            assertNull(((Revised<?>) join(raw.update("k", order))).refused(), "sender " + sender);
        }
        assertEquals("xx", join(map.get("k")));
    }

    @Test
    void aSignedOrderIsAppliedOnceAndOnlyWhileFresh() {
        Seal seal = new Seal(List.of(KEY_A));
        SealedUpdate<String, String> order = new SealedUpdate<>("farmgate.test", "k",
                seal.seal(SealedUpdate.updates("farmgate.test"), "k", fences.clock().next(0), order()));
        assertEquals("none", ((Revised<?>) join(raw.update("k", order))).result());
        Revised<?> again = (Revised<?>) join(raw.update("k", order));
        assertNotNull(again.refused(), "the same order sent again (an undrain, a place given back) is refused");
        assertEquals("x", join(map.get("k")));
        long aMinuteAgo = (System.currentTimeMillis() - 60_000) << RevisionClock.COUNTER_BITS;
        SealedUpdate<String, String> old = new SealedUpdate<>("farmgate.test", "k",
                seal.seal(SealedUpdate.updates("farmgate.test"), "k", aMinuteAgo, order()));
        assertNotNull(((Revised<?>) join(raw.update("k", old))).refused(), "an order signed a minute ago");
        assertEquals("x", join(map.get("k")));
    }

    /**
     * In a rolling upgrade a node of the version before signs its orders without a policy (read as 0 and 0): they are
     * applied, and every policy survives its compact form.
     */
    @Test
    void anOrderOfTheVersionBeforeIsApplied() {
        for (SealedMap.Policy policy : List.of(SealedMap.Policy.DEFAULT, SealedMap.Policy.GRANTS_NOTHING,
                SealedMap.Policy.DECIDED_BY_OWNER, new SealedMap.Policy(true, null, true, true),
                new SealedMap.Policy(false, java.time.Duration.ofMinutes(10), true))) {
            assertEquals(policy, new SealedUpdate.Order<>(new Append(), 0, false, policy).policy());
        }
        assertEquals(SealedMap.Policy.DEFAULT, new SealedUpdate.Order<>(new Append(), 0, false, 0, 0).policy());
        SealedUpdate<String, String> earlier = new SealedUpdate<>("farmgate.test", "k", new Seal(List.of(KEY_A))
                .seal(SealedUpdate.updates("farmgate.test"), "k", fences.clock().next(0),
                        new SealedUpdate.Order<>(new Append(), 0, false, 0, 0)));
        assertEquals("none", ((Revised<?>) join(raw.update("k", earlier))).result());
        assertEquals("x", join(map.get("k")));
    }

    @Test
    void aRecordOlderThanItsMapsLongestLifeIsDead() {
        SealedMap<String> tickets = sealed("farmgate.tickets", new Seal(List.of(KEY_A)), fences,
                new SealedMap.Policy(false, java.time.Duration.ofSeconds(30), true));
        Seal seal = new Seal(List.of(KEY_A));
        long aMinuteAgo = (System.currentTimeMillis() - 60_000) << RevisionClock.COUNTER_BITS;
        join(raw.set("t", seal.seal("farmgate.tickets", "t", aMinuteAgo, "ticket")));
        assertNull(join(tickets.get("t")), "a ticket put back with a fresh time to live is still a minute old");
        join(tickets.set("t2", "ticket"));
        assertEquals("ticket", join(tickets.get("t2")));
    }

    /**
     * Every node reads every node's entry each beat: the owner answers with the projection, sealed at the record's
     * revision, instead of the record; the asker checks it as it would the record.
     */
    @Test
    void aQueryIsAnsweredWithProjectionsTheOwnerSealsAtTheRecordsRevision() {
        String big = "x".repeat(5000);
        join(map.set("a", big));
        join(map.set("b", "yy"));
        assertEquals(List.of(2, 5000), sorted(join(map.query(new Lengths()))));
        List<Object> answers = join(raw.query(new SealedQuery<>("farmgate.test", new Lengths(), true)));
        Sealed record = (Sealed) join(raw.get("a"));
        Sealed projection = answers.stream().map(Sealed.class::cast).filter(each -> each.key().equals("a"))
                .findFirst().orElseThrow();
        assertEquals(SealedQuery.label("farmgate.test", new Lengths()), projection.map());
        assertEquals(record.revision(), projection.revision());
        assertTrue(projection.payload().length < 200 && record.payload().length > 5000, "the summary travels");
        assertSame(projection, join(raw.query(new SealedQuery<>("farmgate.test", new Lengths(), true))).stream()
                .filter(each -> ((Sealed) each).key().equals("a")).findFirst().orElseThrow(),
                "sealed once per revision, not once per asker");
        assertEquals(List.of(), rejected);
    }

    @Test
    void aProjectionOfACopyPutBackIsNotBelievedNorDoesAProjectionOpenAsARecord() {
        join(map.set("token", "admin"));
        Object before = join(raw.get("token"));
        join(map.set("token", "viewer"));
        join(raw.set("token", before)); // the owner projects the copy, at its old revision
        assertEquals(List.of(), join(map.query(new Lengths())));
        assertEquals(List.of("farmgate.test:replayed"), rejected);

        join(map.set("k", "admin"));
        Sealed projection = (Sealed) join(raw.query(new SealedQuery<>("farmgate.test", new Lengths(), true))).stream()
                .filter(each -> ((Sealed) each).key().equals("k")).findFirst().orElseThrow();
        join(raw.set("k", projection)); // a projection put back as the record
        assertNull(join(map.get("k")));
        assertEquals(List.of(), join(map.query(Query.<String>all())), "nor does it match where it lies");
    }

    /** During a rolling upgrade an owner of the version before answers with records: they are read as before. */
    @Test
    void anOwnerThatAnswersWithRecordsIsUnderstood() {
        join(map.set("a", "four"));
        @SuppressWarnings("unchecked")
        org.farmgate.router.store.SharedMap<String, Object> earlier = (org.farmgate.router.store.SharedMap<String,
                Object>) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {org.farmgate.router.store.SharedMap.class}, (proxy, method, args) -> {
                            if (method.getName().equals("query") && args[0] instanceof SealedQuery<?> asked) {
                                return raw.query(new SealedQuery<>(asked.map(), asked.query(), false));
                            }
                            return method.invoke(raw, args);
                        });
        SealedMap<String> reader = new SealedMap<>("farmgate.test", earlier, new Seal(List.of(KEY_A)), fences,
                SealedMap.Policy.DEFAULT, (m, reason) -> rejected.add(m + ":" + reason));
        assertEquals(List.of(4), join(reader.query(new Lengths())));
        assertEquals("farmgate.test", ((Sealed) join(earlier.query(new SealedQuery<>("farmgate.test", new Lengths(),
                true))).get(0)).map(), "the answer was the record itself");
        assertEquals(List.of(), rejected);
    }

    private static SealedUpdate.Order<String, String> order() {
        return new SealedUpdate.Order<>(new Append(), 0, false, SealedMap.Policy.DEFAULT);
    }

    /** Writes "truth" whatever the entry holds, a copy put back included. */
    private record Truth() implements Update<String, String> {
        @Override
        public Outcome<String, String> apply(String current) {
            return Outcome.store("truth", "truth");
        }

        @Override
        public Outcome<String, String> applyToStale(String stale) {
            return apply(stale);
        }
    }

    /** Appends "x", answering what was there ("none" when absent). */
    private record Append() implements Update<String, String> {
        @Override
        public Outcome<String, String> apply(String current) {
            return Outcome.store((current == null ? "" : current) + "x", current == null ? "none" : current);
        }
    }

    private static <T extends Comparable<T>> List<T> sorted(List<T> values) {
        List<T> copy = new ArrayList<>(values);
        copy.sort(null);
        return copy;
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }
}
