package org.farmgate.router.addressbook;

import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.protocol.GuacamoleStatus;
import org.farmgate.router.store.SharedMap;
import org.farmgate.router.store.Update;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The address book, cached once for the whole cluster.
 *
 * <p>One node loads at a time: a load first takes a lease (an atomic update on a shared key), so however many
 * nodes find the copy old, the source is read once. The lease lives two minutes on the clock of the member that
 * owns it (so a loader that died frees it, and no two hosts' clocks are compared), and only its holder may give it
 * back: each claim carries a token of its own, so a load that outlived its lease cannot remove the next holder's.
 * Nodes waiting for a load are woken by the book's arrival or the lease's end, not by polling. Every node serves the shared copy; after the first load no
 * reader waits on the source: a copy older than the time to live is served as it is while one node refreshes it
 * (stale-while-revalidate). A refresh that fails keeps the last good copy and records why, which the API and the
 * readiness check report; only a cluster that never loaded the book answers with the error.
 */
public final class AddressBookCache {

    private static final Logger LOG = LoggerFactory.getLogger(AddressBookCache.class);
    private static final String BOOK = "book";
    /**
     * Beside the book, the same copy without its folders: what a reader compares with the copy it holds, so that a
     * warm read fetches and unpacks a few bytes instead of the whole book (a thousand entries take milliseconds to
     * deserialise, at every read). Written after the book, so that a stamp never names a copy not there yet.
     */
    private static final String STAMP = "stamp";
    private static final String LOADER = "loader";
    private static final Duration LEASE = Duration.ofSeconds(120);
    /** The longest a waiter sleeps between looks, should a wake-up be missed. */
    private static final Duration WAKE = Duration.ofSeconds(1);

    /** Who is loading, under which claim. */
    public record Lease(String nodeId, String token) implements Serializable {
    }

    /** What the cache counts, for the metrics. */
    public interface Listener {
        void hit();

        void miss();

        void loaded(long nanos, boolean ok);
    }

    private final SharedMap<String, AddressBook> books;
    private final SharedMap<String, Lease> leases;
    private final AddressBookSource source;
    private final Executor loader;
    private final Duration ttl;
    private final String nodeId;
    private final Clock clock;
    private final Listener listener;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile AddressBook lastSeen;
    private volatile String lastFailure;

    public AddressBookCache(SharedMap<String, AddressBook> books, SharedMap<String, Lease> leases,
            AddressBookSource source, Executor loader, Duration ttl, String nodeId, Clock clock, Listener listener) {
        this.books = books;
        this.leases = leases;
        this.source = source;
        this.loader = loader;
        this.ttl = ttl;
        this.nodeId = nodeId;
        this.clock = clock;
        this.listener = listener;
    }

    public AddressBookSource source() {
        return source;
    }

    /** The copy this node saw last, or null; with {@link #lastFailure()}, what readiness reports. */
    public AddressBook lastSeen() {
        return lastSeen;
    }

    /** Why this node's last load failed, or null. */
    public String lastFailure() {
        return lastFailure;
    }

    /** The shared copy; loads it only when the cluster has none, refreshes it in the background when old. */
    public CompletionStage<AddressBook> read() {
        AddressBook known = lastSeen;
        CompletionStage<AddressBook> current = known == null ? books.get(BOOK) : books.get(STAMP).thenCompose(
                stamp -> stamp != null && sameCopy(stamp, known) ? CompletableFuture.completedFuture(known)
                        : books.get(BOOK));
        return current.thenCompose(book -> {
            if (book == null) {
                listener.miss();
                return CompletableFuture.supplyAsync(this::loadOrWait, loader);
            }
            listener.hit();
            lastSeen = book;
            if (book.loadedAt().plus(ttl).isBefore(clock.instant())) {
                refreshInBackground();
            }
            return CompletableFuture.completedFuture(book);
        });
    }

    private static boolean sameCopy(AddressBook stamp, AddressBook book) {
        return stamp.loadedAt().equals(book.loadedAt()) && java.util.Objects.equals(stamp.error(), book.error());
    }

    /** The book for everyone, then its stamp. */
    private void publish(AddressBook book) {
        books.set(BOOK, book).toCompletableFuture().join();
        books.set(STAMP, new AddressBook(java.util.List.of(), book.loadedAt(), book.error())).toCompletableFuture()
                .join();
    }

    /** Reloads now and waits for it (after a write through the API: the next read must see the write). */
    public CompletionStage<AddressBook> refresh() {
        return CompletableFuture.supplyAsync(() -> loadHoldingLease(null, awaitLease(Duration.ofSeconds(60))),
                loader);
    }

    private void refreshInBackground() {
        if (!refreshing.compareAndSet(false, true)) {
            return;
        }
        CompletableFuture.runAsync(() -> {
            try {
                String token = claim();
                if (token != null) {
                    AddressBook current = books.get(BOOK).toCompletableFuture().join();
                    loadHoldingLease(current, token);
                }
            } catch (RuntimeException e) {
                LOG.debug("background refresh: {}", e.getMessage());
            } finally {
                refreshing.set(false);
            }
        }, loader);
    }

    /** Called on a loader thread when the cluster has no copy: load it, or wait for the node that is loading. */
    private AddressBook loadOrWait() {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            AddressBook book = books.get(BOOK).toCompletableFuture().join();
            if (book != null) {
                return book;
            }
            String token = claim();
            if (token != null) {
                return loadHoldingLease(null, token);
            }
            awaitBookOrLease();
        }
        throw new CompletionException(new AddressBookException(GuacamoleStatus.UPSTREAM_UNAVAILABLE, "the address book is still loading"));
    }

    /** Takes the lease, waiting for the holder to give it up; the claim's token. */
    private String awaitLease(Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        String token;
        while ((token = claim()) == null) {
            if (System.nanoTime() > deadline) {
                throw new CompletionException(new AddressBookException(GuacamoleStatus.UPSTREAM_UNAVAILABLE,
                        "another node is still loading the address book"));
            }
            awaitBookOrLease();
        }
        return token;
    }

    /** Sleeps until the book is published or the lease ends (given back, or expired with its holder). */
    private void awaitBookOrLease() {
        CompletableFuture.anyOf(books.awaitChange(BOOK, WAKE).toCompletableFuture(),
                leases.awaitChange(LOADER, WAKE).toCompletableFuture()).join();
    }

    /** Loads and publishes; the lease, claimed as {@code token}, is held and given back here. */
    private AddressBook loadHoldingLease(AddressBook previous, String token) {
        long start = System.nanoTime();
        try {
            AddressBook book = source.load();
            publish(book);
            listener.loaded(System.nanoTime() - start, true);
            lastSeen = book;
            lastFailure = null;
            LOG.info("address book loaded: {} folders, {} entries in {} ms", book.folders().size(), book.entryCount(),
                    (System.nanoTime() - start) / 1_000_000);
            return book;
        } catch (AddressBookException e) {
            listener.loaded(System.nanoTime() - start, false);
            lastFailure = e.getMessage();
            AddressBook last = previous != null ? previous : books.get(BOOK).toCompletableFuture().join();
            if (last == null) {
                throw new CompletionException(e);
            }
            LOG.warn("address book refresh failed, serving the copy of {}: {}", last.loadedAt(), e.getMessage());
            AddressBook kept = last.failedRefresh(e.getMessage());
            publish(kept);
            return kept;
        } finally {
            leases.update(LOADER, new GiveBack(token)).toCompletableFuture().join();
        }
    }

    /** The claim's token when this node took the lease, null when another node holds it. */
    private String claim() {
        String token = UUID.randomUUID().toString();
        return leases.update(LOADER, new Claim(new Lease(nodeId, token), LEASE)).toCompletableFuture().join()
                ? token : null;
    }

    private record Claim(Lease lease, Duration ttl) implements Update<Lease, Boolean> {

        @Override
        public Outcome<Lease, Boolean> apply(Lease current) {
            return current != null ? Outcome.keep(false) : Outcome.storeFor(lease, ttl, true);
        }
    }

    /** Removes the lease only if it is still the claim {@code token} made. */
    private record GiveBack(String token) implements Update<Lease, Boolean> {

        @Override
        public Outcome<Lease, Boolean> apply(Lease current) {
            return current != null && current.token().equals(token) ? Outcome.store(null, true)
                    : Outcome.keep(false);
        }
    }
}
