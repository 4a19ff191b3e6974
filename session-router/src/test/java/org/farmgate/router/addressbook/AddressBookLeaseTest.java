package org.farmgate.router.addressbook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.router.store.Query;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;
import org.farmgate.testkit.time.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The load lease: a load that outlives its lease (the lease expired on its owner's clock, another node took it)
 * gives back nothing but its own, and a node waiting for a load is woken by its end rather than polling. And the
 * stamp: a warm read fetches the book's stamp, not the book, until the book changes.
 */
class AddressBookLeaseTest {

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(1_000_000));
    private final LocalSharedMap<String, AddressBook> books = new LocalSharedMap<>(clock);
    private final LocalSharedMap<String, AddressBookCache.Lease> leases = new LocalSharedMap<>(clock);
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void aLoadThatOutlivedItsLeaseLeavesTheNextHoldersLease() throws Exception {
        Blocking slowA = new Blocking();
        Blocking slowB = new Blocking();
        AddressBookCache a = cache(slowA, "a");
        AddressBookCache b = cache(slowB, "b");

        CompletableFuture<AddressBook> first = a.refresh().toCompletableFuture();
        slowA.started.await(10, TimeUnit.SECONDS);
        assertEquals("a", lease().nodeId());
        clock.advance(Duration.ofMinutes(3)); // a's lease runs out while it still loads
        CompletableFuture<AddressBook> second = b.refresh().toCompletableFuture();
        slowB.started.await(10, TimeUnit.SECONDS);
        assertEquals("b", lease().nodeId());

        slowA.finish.countDown();
        first.get(10, TimeUnit.SECONDS);
        assertEquals("b", lease().nodeId(), "a's late end did not remove b's lease");
        slowB.finish.countDown();
        second.get(10, TimeUnit.SECONDS);
        assertNull(lease(), "b gave its own back");
    }

    @Test
    void aWaitingNodeIsWokenWhenTheLoadEnds() throws Exception {
        Blocking slow = new Blocking();
        AddressBookCache loader = cache(slow, "a");
        AddressBookCache waiter = cache(new Blocking(), "b");
        loader.refresh();
        slow.started.await(10, TimeUnit.SECONDS);
        CompletableFuture<AddressBook> waiting = waiter.read().toCompletableFuture();
        Thread.sleep(300);
        long released = System.nanoTime();
        slow.finish.countDown();
        waiting.get(10, TimeUnit.SECONDS);
        long waitedMillis = (System.nanoTime() - released) / 1_000_000;
        // Woken by the book's arrival: well before the one-second fallback look.
        assertEquals(true, waitedMillis < 900, "woken after " + waitedMillis + " ms");
    }

    @Test
    void aWarmReadFetchesTheStampNotTheBookUntilTheBookChanges() throws Exception {
        Blocking first = new Blocking();
        first.finish.countDown();
        cache(first, "a").refresh().toCompletableFuture().get(10, TimeUnit.SECONDS);
        AtomicInteger bookReads = new AtomicInteger();
        AddressBookCache reader = cache(counting(bookReads), new Blocking(), "b");
        AddressBook seen = reader.read().toCompletableFuture().get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 5; i++) {
            assertEquals(seen, reader.read().toCompletableFuture().get(10, TimeUnit.SECONDS));
        }
        assertEquals(1, bookReads.get(), "warm reads fetched the whole book");

        clock.advance(Duration.ofSeconds(1));
        Blocking second = new Blocking();
        second.finish.countDown();
        AddressBook newer = cache(second, "a").refresh().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals(newer.loadedAt(), reader.read().toCompletableFuture().get(10, TimeUnit.SECONDS).loadedAt(),
                "a changed book was not seen");
        assertEquals(2, bookReads.get());
    }

    /** {@link #books}, counting the reads of the whole book. */
    private SharedMap<String, AddressBook> counting(AtomicInteger bookReads) {
        return new SharedMap<>() {
            @Override
            public CompletionStage<AddressBook> get(String key) {
                if (key.equals("book")) {
                    bookReads.incrementAndGet();
                }
                return books.get(key);
            }

            @Override
            public CompletionStage<Void> set(String key, AddressBook value) {
                return books.set(key, value);
            }

            @Override
            public CompletionStage<Void> set(String key, AddressBook value, Duration ttl) {
                return books.set(key, value, ttl);
            }

            @Override
            public CompletionStage<AddressBook> putIfAbsent(String key, AddressBook value) {
                return books.putIfAbsent(key, value);
            }

            @Override
            public CompletionStage<AddressBook> remove(String key) {
                return books.remove(key);
            }

            @Override
            public <R> CompletionStage<R> update(String key, Update<AddressBook, R> update) {
                return books.update(key, update);
            }

            @Override
            public <P> CompletionStage<List<P>> query(Query<AddressBook, P> query) {
                return books.query(query);
            }

            @Override
            public CompletionStage<Void> awaitChange(String key, Duration max) {
                return books.awaitChange(key, max);
            }
        };
    }

    private AddressBookCache.Lease lease() {
        return leases.get("loader").toCompletableFuture().join();
    }

    private AddressBookCache cache(AddressBookSource source, String node) {
        return cache(books, source, node);
    }

    private AddressBookCache cache(SharedMap<String, AddressBook> shared, AddressBookSource source, String node) {
        return new AddressBookCache(shared, leases, source, pool, Duration.ofHours(1), node, clock,
                new AddressBookCache.Listener() {
                    @Override
                    public void hit() {
                    }

                    @Override
                    public void miss() {
                    }

                    @Override
                    public void loaded(long nanos, boolean ok) {
                    }
                });
    }

    /** A source whose load waits until the test lets it finish. */
    private final class Blocking implements AddressBookSource {

        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch finish = new CountDownLatch(1);

        @Override
        public AddressBook load() {
            started.countDown();
            try {
                finish.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new AddressBook(List.of(), clock.instant(), null);
        }

        @Override
        public Map<String, Object> readEntry(String scope, String folderPath, String entry) {
            return null;
        }

        @Override
        public boolean writable() {
            return false;
        }

        @Override
        public void writeFolder(String scope, String folderPath, FolderSettings settings) {
        }

        @Override
        public void writeEntry(String scope, String folderPath, String entry, Map<String, Object> fields) {
        }

        @Override
        public boolean deleteEntry(String scope, String folderPath, String entry) {
            return false;
        }

        @Override
        public int deleteFolder(String scope, String folderPath) {
            return 0;
        }
    }
}
