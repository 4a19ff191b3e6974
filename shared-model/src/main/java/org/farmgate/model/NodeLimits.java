package org.farmgate.model;

import java.io.Serializable;

/**
 * What a node may take on, set by its own configuration.
 *
 * @param budgetMb memory this node may give to guacd sessions
 * @param marginMb memory always left to the host, whatever it reports as available
 * @param maxSessions pending and active sessions at most
 * @param maxSessionsPerCore sessions per CPU at most, 0 for no such cap (guacd runs a display thread per core for
 *     every connection, so CPU can run out before memory does)
 */
public record NodeLimits(long budgetMb, long marginMb, int maxSessions, int maxSessionsPerCore)
        implements Serializable {
}
