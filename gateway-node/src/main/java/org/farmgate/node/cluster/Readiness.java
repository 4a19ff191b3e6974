package org.farmgate.node.cluster;

import java.util.ArrayList;
import java.util.List;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.OutboxState;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.addressbook.AddressBook;
import org.farmgate.node.runtime.ClusterRuntime;
import org.farmgate.router.addressbook.AddressBookCache;

/**
 * Whether this node should be sent traffic: it has joined the cluster and published its entry, its guacd answers,
 * and its address book (when it has one) was read at least once somewhere in the cluster. A book that fails to
 * refresh keeps the node ready, since its last good copy is served.
 */
public final class Readiness {

    /** One check: its name, whether it passes, and what it saw. */
    public record Check(String name, boolean ok, String detail) {
    }

    private final NodeAgent agent;
    private final ClusterRuntime runtime;
    private final String guacd;
    private final AddressBookCache addressBook;
    private final DurableStore records;
    private final boolean auditRequired;

    /**
     * @param addressBook null when the node has none
     * @param auditRequired whether a node that cannot write its audit log is not ready ({@code GW_AUDIT_REQUIRED}):
     *     otherwise a database that is away is a detail, never a reason to send no traffic
     */
    public Readiness(NodeAgent agent, ClusterRuntime runtime, String guacdAddress, AddressBookCache addressBook,
            DurableStore records, boolean auditRequired) {
        this.records = records;
        this.auditRequired = auditRequired;
        this.agent = agent;
        this.runtime = runtime;
        this.guacd = guacdAddress;
        this.addressBook = addressBook;
    }

    public List<Check> checks() {
        List<Check> checks = new ArrayList<>(3);
        checks.add(cluster());
        checks.add(addressBook());
        checks.add(guacd());
        checks.add(records());
        return checks;
    }

    private Check records() {
        if (!records.configured()) {
            return new Check("records", true, "no database (GW_DB_URL): history and audit are not kept");
        }
        OutboxState state = records.state();
        String detail = (state.databaseUp() ? "the database answers" : "the database is away ("
                + state.lastError() + ")") + "; " + state.queued() + " facts queued, " + state.spooledBytes()
                + " of " + records.spoolLimitBytes() + " spool bytes used"
                + (state.dropped() > 0 ? ", " + state.dropped() + " facts dropped since the start" : "");
        return new Check("records", !auditRequired || state.writable(), detail);
    }

    private Check cluster() {
        NodeLoad self = agent.lastPublished();
        int members = runtime.membership().memberIds().size();
        return new Check("cluster", self != null && runtime.isRunning(), self == null ? "not registered yet"
                : runtime.isClustered() ? members + " members" : "running alone");
    }

    private Check guacd() {
        NodeLoad self = agent.lastPublished();
        boolean healthy = self != null && self.measurements().guacdHealthy();
        return new Check("guacd", healthy, guacd + (healthy ? " answers" : " does not answer"));
    }

    private Check addressBook() {
        if (addressBook == null) {
            return new Check("addressbook", true, "not configured");
        }
        AddressBook seen = addressBook.lastSeen();
        String failure = addressBook.lastFailure();
        if (seen == null) {
            return new Check("addressbook", failure == null, failure == null ? "not read yet"
                    : "never loaded: " + failure);
        }
        return new Check("addressbook", true, seen.error() == null ? seen.entryCount() + " entries, loaded "
                + seen.loadedAt() : "serving the copy of " + seen.loadedAt() + "; the last refresh failed: "
                + seen.error());
    }
}
