package org.farmgate.node.addressbook;

import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.farmgate.node.config.AddressBookSettings;
import org.farmgate.node.metrics.NodeMetrics;
import org.farmgate.node.runtime.ClusterRuntime;
import org.farmgate.node.runtime.DaemonThreads;
import org.farmgate.router.addressbook.AddressBookCache;
import org.farmgate.router.addressbook.AddressBookException;
import org.farmgate.router.addressbook.AddressBookSource;
import org.farmgate.router.addressbook.FileSource;
import org.farmgate.router.addressbook.VaultSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The address book of a node: its source (Vault or a file), the cluster-wide cache in front of it, and the threads
 * they block on. Vault's driver blocks, so its calls get a bounded pool of their own, as wide as the parallelism
 * configured; loads get two more threads so that a load waiting on its calls never holds a call's thread.
 */
public final class AddressBookRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(AddressBookRuntime.class);

    private final AddressBookCache cache;
    private final ExecutorService blocking;
    private final ExecutorService loader;

    private AddressBookRuntime(AddressBookCache cache, ExecutorService blocking, ExecutorService loader) {
        this.cache = cache;
        this.blocking = blocking;
        this.loader = loader;
    }

    /** The configured address book, or null when the node has none. */
    public static AddressBookRuntime start(AddressBookSettings settings, String nodeId, ClusterRuntime runtime,
            NodeMetrics metrics, Clock clock) {
        if (!settings.configured()) {
            return null;
        }
        int width = settings.vault() != null ? settings.vault().parallelism() : 1;
        ExecutorService blocking = Executors.newFixedThreadPool(width, DaemonThreads.named("farmgate-addressbook-io"));
        ExecutorService loader = Executors.newFixedThreadPool(2, DaemonThreads.named("farmgate-addressbook-load"));
        AddressBookSource source;
        try {
            source = settings.vault() != null
                    ? new VaultSource(settings.vault(), blocking, metrics.vaultCalls(), clock)
                    : new FileSource(settings.file(), clock);
        } catch (AddressBookException e) {
            blocking.shutdownNow();
            loader.shutdownNow();
            throw new IllegalStateException(e.getMessage(), e);
        }
        AddressBookCache cache = new AddressBookCache(runtime.addressBooks(), runtime.addressBookLeases(), source,
                loader, settings.ttl(), nodeId, clock, metrics.addressBookListener());
        LOG.info("address book from {}", settings.vault() != null ? settings.vault() : settings.file());
        // Read at start, in the background: the cluster's copy when there is one; else this node (or whichever
        // holds the load's lease) loads it now, so that the first person to open the book does not wait for a
        // fresh JVM's first load, which is bound by the JIT rather than by Vault (bench/RESULTS.md, issue 28).
        cache.read().whenComplete((book, error) -> {
            if (error != null) {
                LOG.info("the address book could not be read at start ({}); the next read tries again",
                        error.getMessage());
            }
        });
        return new AddressBookRuntime(cache, blocking, loader);
    }

    public AddressBookCache cache() {
        return cache;
    }

    public void close() {
        blocking.shutdownNow();
        loader.shutdownNow();
    }
}
