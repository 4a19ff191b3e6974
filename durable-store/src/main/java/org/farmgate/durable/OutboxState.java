package org.farmgate.durable;

/**
 * How the outbox stands, for metrics, readiness and {@code GW_AUDIT_REQUIRED}.
 *
 * @param databaseUp whether the last write (or probe) reached the database
 * @param queued facts in memory
 * @param spooledBytes bytes of facts waiting in the spool file
 * @param dropped facts lost since the start because both bounds were full
 * @param rejected facts the database refused for what they held (a bug, logged with the reason)
 * @param written facts written since the start
 * @param lastError why the database was last found away; null when never
 */
public record OutboxState(boolean databaseUp, int queued, long spooledBytes, long dropped, long rejected, long written,
        String lastError) {

    /** Whether what happens now will be written: the database answers and nothing has been dropped lately. */
    public boolean writable() {
        return databaseUp && spooledBytes == 0;
    }
}
