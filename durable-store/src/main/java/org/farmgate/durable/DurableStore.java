package org.farmgate.durable;

import java.util.concurrent.CompletionStage;

/**
 * What outlives every node, as the rest of the node sees it: facts recorded without waiting, operations answered
 * later, and how the writing stands. Nothing here blocks its caller; the database is reached by the store's own
 * threads only.
 */
public interface DurableStore extends AutoCloseable {

    /** Written once, in order, whenever the database allows; never blocks, never fails (a dropped fact is counted). */
    void record(Fact fact);

    /** Runs {@code operation} on the store's threads; fails with an {@code UnavailableException} when it cannot. */
    <T> CompletionStage<T> run(Operation<T> operation);

    OutboxState state();

    /** The spool's bound in bytes; 0 when nothing is kept. */
    long spoolLimitBytes();

    /** Whether there is a database at all: a cluster without {@code GW_DB_URL} has none and forgets. */
    boolean configured();

    @Override
    void close();

    /** Opens the database of {@code settings}, or the store of a node that keeps nothing. */
    static DurableStore open(StoreSettings settings) {
        return settings == null ? new NoStore() : new JdbcStore(settings);
    }
}
