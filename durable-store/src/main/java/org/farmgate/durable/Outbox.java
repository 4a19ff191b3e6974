package org.farmgate.durable;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Facts on their way to the database, written by one thread of its own so that whoever records a fact (an event
 * loop) never waits.
 *
 * <p>Guarantees: facts land in the order they were offered (per node); each lands once (the writes are idempotent,
 * see {@link FactWriter}); none is lost while the database is away, up to two bounds: the memory queue
 * ({@code outboxMemory} facts), which a writer that cannot reach the database empties into the spool file, and the
 * spool ({@code spoolMaxBytes}). Past both, a fact is dropped, counted and logged (once a minute): the node says so
 * in its readiness detail and metrics.
 *
 * <p>The writer is in one of two modes. Direct: the spool is empty, batches go from memory to the database. Spooling:
 * the database was found away, or the spool holds facts from an earlier run; then everything from memory goes to the
 * end of the spool first, and the spool is written from its head, so that order holds across the switch. The first
 * batch written from the spool is also the probe that finds the database back; the writer goes direct again once
 * the spool is empty.
 */
final class Outbox implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Outbox.class);
    static final int BATCH = 500;
    private static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long RETRY_MIN_MS = 250;
    private static final long RETRY_MAX_MS = 5_000;

    private final Database database;
    private final FactWriter writer;
    private final Spool spool;
    private final ArrayBlockingQueue<Fact> memory;
    private final Thread thread;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private volatile boolean running = true;
    private volatile boolean databaseUp = true;
    private volatile String lastError;
    private volatile long spooledBytes;
    private long retryMs = RETRY_MIN_MS;
    private long lastAwayLog;
    private final AtomicLong lastDropLog = new AtomicLong();

    Outbox(Database database, FactWriter writer, Spool spool, int memoryBound) {
        this.database = database;
        this.writer = writer;
        this.spool = spool;
        this.memory = new ArrayBlockingQueue<>(memoryBound);
        this.spooledBytes = spool.waiting();
        if (!spool.isEmpty()) {
            LOG.info("the outbox's spool holds {} bytes of facts from an earlier run: written first", spool.waiting());
        }
        this.thread = new Thread(this::run, "farmgate-outbox");
        thread.setDaemon(true);
        thread.start();
    }

    /** Never blocks: a fact that fits nowhere is dropped and counted. */
    void offer(Fact fact) {
        if (!memory.offer(fact)) {
            dropped(1);
        }
    }

    OutboxState state() {
        return new OutboxState(databaseUp, memory.size(), spooledBytes, dropped.get(), rejected.get(), written.get(),
                lastError);
    }

    private void run() {
        while (running || !memory.isEmpty()) {
            try {
                if (spool.isEmpty() && databaseUp) {
                    direct();
                } else {
                    spooling();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | IOException | AssertionError e) {
                LOG.error("the outbox's writer failed; retrying", e); // the thread must outlive any one failure
                pause();
            }
        }
    }

    private void direct() throws InterruptedException, IOException {
        Fact first = memory.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
            return;
        }
        List<Fact> batch = new ArrayList<>(BATCH);
        batch.add(first);
        // a moment for the facts that come with this one (a session's opening and its audit, say): one transaction,
        // one turn of the audit chain's lock and one commit for all of them
        long until = System.nanoTime() + LINGER_NANOS;
        while (batch.size() < BATCH && System.nanoTime() < until) {
            Fact next = memory.poll(until - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null) {
                break;
            }
            batch.add(next);
            memory.drainTo(batch, BATCH - batch.size());
        }
        try {
            write(batch, true);
        } catch (SQLException e) {
            away(e);
            keep(batch);
        }
    }

    private void spooling() throws InterruptedException, IOException {
        List<Fact> moving = new ArrayList<>(BATCH);
        while (memory.drainTo(moving, BATCH) > 0) {
            keep(moving);
            moving.clear();
        }
        if (spool.isEmpty()) {
            databaseUp = true; // a fresh spool with nothing in it: try the database directly again
            return;
        }
        Spool.Batch batch = spool.peek(BATCH);
        try {
            write(batch.facts(), false);
            spool.advance(batch);
            spooledBytes = spool.waiting();
            if (!databaseUp) {
                LOG.info("the database answers again: writing the {} bytes of facts that waited", spool.waiting());
            }
            databaseUp = true;
            retryMs = RETRY_MIN_MS;
        } catch (SQLException e) {
            away(e);
            Thread.sleep(retryMs);
            retryMs = Math.min(RETRY_MAX_MS, retryMs * 2);
        }
    }

    /**
     * Writes a batch in one transaction. A batch the database refuses for what it holds (not for being away) is
     * written again fact by fact, so that one bad fact cannot hold back every other: that one is dropped, logged and
     * counted.
     */
    private void write(List<Fact> batch, boolean firstTry) throws SQLException {
        try {
            commit(batch, firstTry);
        } catch (SQLException e) {
            if (isAway(e) || batch.size() == 1) {
                if (!isAway(e)) {
                    rejected.incrementAndGet();
                    LOG.error("the database refused a fact, which is dropped: {} ({})", batch.get(0).getClass()
                            .getSimpleName(), Database.rootMessage(e));
                    return;
                }
                throw e;
            }
            for (Fact fact : batch) {
                write(List.of(fact), false);
            }
        }
    }

    /** Whether the error says the database is away (or busy), rather than that it refuses what it was given. */
    static boolean isAway(SQLException e) {
        if (e instanceof java.sql.SQLTransientException || e instanceof java.sql.SQLRecoverableException
                || e instanceof java.sql.SQLNonTransientConnectionException) {
            return true;
        }
        String state = e.getSQLState();
        if (state == null || state.length() < 2) {
            return true;
        }
        String kind = state.substring(0, 2);
        // connection, resources, operator intervention (shutdown, cancel), system error, rollback (deadlock)
        return kind.equals("08") || kind.equals("53") || kind.equals("57") || kind.equals("58") || kind.equals("40")
                || kind.equals("XX") || kind.equals("HY") || kind.equals("90"); // H2's connection and file errors
    }

    /** @param firstTry the batch was never given to the database before: see {@link FactWriter#write} */
    private void commit(List<Fact> batch, boolean firstTry) throws SQLException {
        if (batch.isEmpty()) {
            return;
        }
        try (Connection connection = database.connect()) {
            try {
                writer.write(connection, batch, firstTry);
                connection.commit();
            } catch (SQLException | RuntimeException | AssertionError e) {
                rollback(connection);
                throw e;
            }
        } catch (RuntimeException | AssertionError e) {
            // Not an answer of the database but a failure on the way to it (pgjdbc's own assertion on a connection
            // closed under it was seen in the suite, and killed this thread): the batch is kept and tried again like
            // one the database did not take, never lost with the thread that held it.
            throw new SQLException("the write failed: " + e, "58000", e);
        }
        written.addAndGet(batch.size());
    }

    private void keep(List<Fact> facts) throws IOException {
        int kept = spool.append(facts);
        spooledBytes = spool.waiting();
        if (kept < facts.size()) {
            dropped(facts.size() - kept);
        }
    }

    /** Logged when the database goes away, then once a minute while it stays away. */
    private void away(SQLException e) {
        String why = Database.rootMessage(e);
        long now = System.nanoTime();
        if (databaseUp || now - lastAwayLog > TimeUnit.MINUTES.toNanos(1)) {
            lastAwayLog = now;
            LOG.warn("the database cannot be written ({}): facts wait in the spool until it answers; {} bytes "
                    + "spooled", why, spool.waiting());
        }
        lastError = why;
        databaseUp = false;
    }

    private void dropped(int count) {
        long total = dropped.addAndGet(count);
        long now = System.nanoTime();
        long last = lastDropLog.get();
        if ((last == 0 || now - last > TimeUnit.MINUTES.toNanos(1)) && lastDropLog.compareAndSet(last, now)) {
            LOG.error("history and audit facts dropped: the outbox's memory and spool are both full ({} dropped "
                    + "since the start); the database must come back", total);
        }
    }

    private static void rollback(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException | RuntimeException | AssertionError ignored) {
            // the connection is broken; the pool discards it
        }
    }

    private void pause() {
        try {
            Thread.sleep(RETRY_MAX_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    /** Stops after writing what memory holds, or spooling it; waits for that at most 10 s. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            thread.interrupt();
        }
    }
}
