package org.farmgate.durable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.farmgate.error.UnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store over JDBC: facts through the {@link Outbox}'s writer thread, operations on a small pool of threads of
 * its own with a bounded queue (a flood of report requests is refused, not queued without end).
 */
final class JdbcStore implements DurableStore {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcStore.class);
    private static final int WAITING_OPERATIONS = 64;

    private final Database database;
    private final Outbox outbox;
    private final ThreadPoolExecutor operations;
    private final Operation.Parts parts;
    private final long spoolLimit;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();

    JdbcStore(StoreSettings settings) {
        this.database = new Database(settings);
        this.spoolLimit = settings.spoolMaxBytes();
        Statements statements = new Statements(database.statementTimeoutSeconds());
        FactWriter writer = new FactWriter(statements);
        this.parts = new Operation.Parts(new Reports(statements), new Maintenance(writer), new Tokens(statements),
                new People(statements), new RustguacImport(writer, statements), new HostKeys(statements),
                new Recordings(statements));
        this.outbox = new Outbox(database, writer, new Spool(settings.spoolFile(), settings.spoolMaxBytes()),
                settings.outboxMemory());
        AtomicInteger threads = new AtomicInteger();
        this.operations = new ThreadPoolExecutor(settings.poolSize(), settings.poolSize(), 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(WAITING_OPERATIONS), task -> {
                    Thread thread = new Thread(task, "farmgate-store-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        LOG.info("durable store: {}", settings);
    }

    @Override
    public void record(Fact fact) {
        outbox.offer(fact);
    }

    @Override
    public <T> CompletionStage<T> run(Operation<T> operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            operations.execute(() -> {
                try (Connection connection = database.connect()) {
                    try {
                        T value = operation.run(connection, parts);
                        connection.commit();
                        result.complete(value);
                    } catch (SQLException | RuntimeException e) {
                        connection.rollback();
                        throw e;
                    }
                } catch (SQLException e) {
                    result.completeExceptionally(new UnavailableException("could not " + operation.name()
                            + ": the database did not answer (" + Database.rootMessage(e) + ")"));
                } catch (RuntimeException e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new UnavailableException("could not " + operation.name() + ": "
                    + WAITING_OPERATIONS + " database operations are already waiting"));
        }
        return result;
    }

    @Override
    public OutboxState state() {
        return outbox.state();
    }

    @Override
    public long spoolLimitBytes() {
        return spoolLimit;
    }

    @Override
    public boolean configured() {
        return true;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        outbox.close();
        operations.shutdown();
        try {
            operations.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        database.close();
    }
}
