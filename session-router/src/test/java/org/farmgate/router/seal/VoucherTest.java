package org.farmgate.router.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.router.store.MemberContext;
import org.farmgate.router.store.Update;
import org.farmgate.router.store.Voucher;
import org.junit.jupiter.api.Test;

/** An owner's voucher: believed by another node once, for exactly what it says, while it is recent. */
class VoucherTest {

    private static final byte[] KEY = "a-cluster-key-of-thirty-two-byte".getBytes();
    private static final byte[] OTHER_KEY = "another-cluster-key-32-bytes-lon".getBytes();

    private final List<String> rejected = new ArrayList<>();
    private final MemberContext owner = new MemberContext(new ConcurrentHashMap<>());
    private final LocalSharedMap<String, Object> raw = new LocalSharedMap<>(java.time.Clock.systemUTC(), owner);
    private final Seal seal = new Seal(List.of(KEY));

    private SealedMap<String> node(String name, Seal with) {
        return new SealedMap<>(name, raw, with, new Fences(), SealedMap.Policy.DEFAULT,
                (map, reason) -> rejected.add(map + ":" + reason));
    }

    @Test
    void anotherNodeBelievesTheOwnersVoucherOnceForWhatItSays() {
        SealedMap.lend(owner, seal, new Fences());
        Voucher voucher = join(node("farmgate.test", seal).update("ann", new Grant("s1"))).voucher();
        assertNotNull(voucher, "the owner vouched for the grant");

        SealedMap<String> other = node("farmgate.test", seal);
        assertFalse(other.vouched("ann", "s2", voucher), "another statement");
        assertFalse(other.vouched("bob", "s1", voucher), "another key");
        assertFalse(node("farmgate.other", seal).vouched("ann", "s1", voucher), "another map");
        assertFalse(node("farmgate.test", new Seal(List.of(OTHER_KEY))).vouched("ann", "s1", voucher),
                "another cluster's key");
        assertFalse(other.vouched("ann", "s1", new Voucher(voucher.map(), voucher.key(), voucher.statement(),
                voucher.revision() + 1, voucher.proof())), "another revision");
        assertEquals(List.of("farmgate.test:forged", "farmgate.test:forged", "farmgate.other:forged",
                "farmgate.test:forged", "farmgate.test:forged"), rejected);

        assertTrue(other.vouched("ann", "s1", voucher));
        assertFalse(other.vouched("ann", "s1", voucher), "shown again: the entry is read instead");
        assertTrue(node("farmgate.test", seal).vouched("ann", "s1", voucher), "each node believes it once");
        assertEquals("farmgate.test:replayed", rejected.get(rejected.size() - 1));
    }

    @Test
    void aVoucherOlderThanTheWindowIsNotBelieved() {
        long longAgo = (System.currentTimeMillis() - AppliedOrders.WINDOW.toMillis() - 1_000)
                << RevisionClock.COUNTER_BITS;
        long lately = System.currentTimeMillis() << RevisionClock.COUNTER_BITS;
        assertFalse(node("farmgate.test", seal).vouched("ann", "s1", seal.vouch("farmgate.test", "ann", "s1",
                longAgo)));
        assertEquals(List.of("farmgate.test:replayed"), rejected);
        assertTrue(node("farmgate.test", seal).vouched("ann", "s1", seal.vouch("farmgate.test", "ann", "s1",
                lately)));
    }

    @Test
    void anOwnerVouchesOnlyWhereTheUpdateAsksAndAPlainMapNever() {
        SealedMap.lend(owner, seal, new Fences());
        assertNull(join(node("farmgate.test", seal).update("ann", new Grant(null))).voucher(), "nothing to vouch");
        LocalSharedMap<String, String> plain = new LocalSharedMap<>();
        assertNull(join(plain.update("ann", new Grant("s1"))).voucher(), "no owner vouches on a plain map");
        assertFalse(plain.vouched("ann", "s1", seal.vouch("farmgate.test", "ann", "s1",
                System.currentTimeMillis() << RevisionClock.COUNTER_BITS)));
    }

    /** What a take answers: the voucher for {@code statement} when there is one to give. */
    record Granted(Voucher voucher) implements java.io.Serializable {
    }

    /** Appends "x" and vouches for {@code statement} (none when null). */
    private record Grant(String statement) implements Update<String, Granted> {

        @Override
        public Outcome<String, Granted> apply(String current) {
            return Outcome.store((current == null ? "" : current) + "x", new Granted(null));
        }

        @Override
        public Granted vouched(Granted result, Function<String, Voucher> owner) {
            return statement == null ? result : new Granted(owner.apply(statement));
        }
    }

    private static <T> T join(CompletionStage<T> stage) {
        return stage.toCompletableFuture().join();
    }
}
