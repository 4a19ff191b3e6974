package org.farmgate.durable;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.farmgate.error.UnavailableException;

/** The store of a cluster without a database: it keeps nothing, and every report says why. */
final class NoStore implements DurableStore {

    private final AtomicLong forgotten = new AtomicLong();

    @Override
    public void record(Fact fact) {
        forgotten.incrementAndGet();
    }

    @Override
    public <T> CompletionStage<T> run(Operation<T> operation) {
        return CompletableFuture.failedFuture(new UnavailableException("could not " + operation.name()
                + ": this cluster has no database (GW_DB_URL), so it keeps no history, audit log or reports"));
    }

    @Override
    public OutboxState state() {
        return new OutboxState(false, 0, 0, forgotten.get(), 0, 0, "no database is configured (GW_DB_URL)");
    }

    @Override
    public long spoolLimitBytes() {
        return 0;
    }

    @Override
    public boolean configured() {
        return false;
    }

    @Override
    public void close() {
    }
}
