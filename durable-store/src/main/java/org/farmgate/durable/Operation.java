package org.farmgate.durable;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.farmgate.durable.Summaries.ChainCheck;
import org.farmgate.durable.Summaries.Purged;
import org.farmgate.durable.Summaries.Summary;
import org.farmgate.durable.Summaries.UserTotal;

/**
 * Something the store does when asked and answers (a report, a check, a purge), as opposed to a {@link Fact}, which
 * is recorded and never answered. Only this package makes them: nothing outside it holds a connection, so nothing
 * outside it reads or writes the database behind the store's back.
 */
public final class Operation<T> {

    interface Body<T> {
        T run(Connection connection, Parts parts) throws SQLException;
    }

    /** What an operation may use. */
    record Parts(Reports reports, Maintenance maintenance, Tokens tokens, People people,
            RustguacImport rustguac, HostKeys hostKeys, Recordings recordings) {
    }

    private final String name;
    private final Body<T> body;

    private Operation(String name, Body<T> body) {
        this.name = name;
        this.body = body;
    }

    T run(Connection connection, Parts parts) throws SQLException {
        return body.run(connection, parts);
    }

    String name() {
        return name;
    }

    public static Operation<Page<SessionRow>> sessions(SessionFilter filter) {
        return new Operation<>("read session history", (c, p) -> p.reports().sessions(c, filter));
    }

    public static Operation<List<UserTotal>> topUsers(SessionFilter filter, int limit) {
        return new Operation<>("read the top users", (c, p) -> p.reports().topUsers(c, filter, limit));
    }

    public static Operation<Summary> summary(SessionFilter filter) {
        return new Operation<>("read the summary", (c, p) -> p.reports().summary(c, filter));
    }

    public static Operation<Page<AuditRow>> audit(AuditFilter filter) {
        return new Operation<>("read the audit log", (c, p) -> p.reports().audit(c, filter));
    }

    public static Operation<ChainCheck> verifyAudit() {
        return new Operation<>("check the audit chain", (c, p) -> p.reports().verify(c));
    }

    /**
     * Closes as lost the rows still open whose node is not among {@code liveNodes}, started before {@code before}
     * (a session opened a moment ago by a node that only now joins is left alone).
     */
    public static Operation<Integer> closeOrphans(Set<String> liveNodes, Instant before, Instant now) {
        return new Operation<>("close the rows of departed nodes", (c, p) -> p.maintenance().closeOrphans(c,
                liveNodes, before, now));
    }

    /** Removes history before {@code historyBefore} and audit rows before {@code auditBefore}, if no other node is. */
    public static Operation<Purged> purge(Instant historyBefore, Instant auditBefore, String nodeId, Instant now) {
        return new Operation<>("purge old rows", (c, p) -> p.maintenance().purge(c, historyBefore, auditBefore,
                nodeId, now));
    }

    /** A new token, written before anyone may use it: the database is the truth, the cluster's maps its copy. */
    public static Operation<Void> saveToken(TokenRow token) {
        return new Operation<>("save the token", (c, p) -> {
            p.tokens().save(c, token);
            return null;
        });
    }

    /** Every token neither revoked nor expired: what a cluster started from nothing puts back in its maps. */
    public static Operation<List<TokenRow>> activeTokens(Instant now) {
        return new Operation<>("read the tokens", (c, p) -> p.tokens().active(c, now));
    }

    public static Operation<List<PersonRow>> people() {
        return new Operation<>("read the people", (c, p) -> p.people().list(c));
    }

    /** The people an admin made an exception of (a role of their own, disabled). */
    public static Operation<List<PersonRow>> peopleExceptions() {
        return new Operation<>("read the people's roles", (c, p) -> p.people().exceptions(c));
    }

    /** The person of that id or (the only one with) that e-mail address. */
    public static Operation<Optional<PersonRow>> person(String idOrEmail) {
        return new Operation<>("read the person", (c, p) -> p.people().find(c, idOrEmail));
    }

    /** A role of the person's own, over their groups'; null gives them their groups' again. */
    public static Operation<Optional<PersonRow>> setRole(String idOrEmail, String roleOverride, String by,
            Instant at) {
        return new Operation<>("change the person's role", (c, p) -> p.people().setRole(c, idOrEmail, roleOverride,
                by, at));
    }

    public static Operation<Optional<PersonRow>> setDisabled(String idOrEmail, boolean disabled, String by,
            Instant at) {
        return new Operation<>(disabled ? "disable the person" : "enable the person", (c, p) -> p.people()
                .setDisabled(c, idOrEmail, disabled, by, at));
    }

    public static Operation<Optional<PersonRow>> deletePerson(String idOrEmail) {
        return new Operation<>("delete the person", (c, p) -> p.people().delete(c, idOrEmail));
    }

    public static Operation<List<GroupMapping>> groupMappings() {
        return new Operation<>("read the group mappings", (c, p) -> p.people().mappings(c));
    }

    /** The new mapping; empty when the group is mapped already. */
    public static Operation<Optional<GroupMapping>> addGroupMapping(String group, String role, String by,
            Instant at) {
        return new Operation<>("add the group mapping", (c, p) -> p.people().addMapping(c, group, role, by, at));
    }

    public static Operation<Optional<GroupMapping>> setGroupMappingRole(long id, String role) {
        return new Operation<>("change the group mapping", (c, p) -> p.people().setMappingRole(c, id, role));
    }

    public static Operation<Optional<GroupMapping>> deleteGroupMapping(long id) {
        return new Operation<>("delete the group mapping", (c, p) -> p.people().deleteMapping(c, id));
    }

    /** The SSH host keys trusted now: what a cluster started from nothing puts back in its map. */
    public static Operation<List<HostKeyRow>> trustedHostKeys() {
        return new Operation<>("read the trusted SSH host keys", (c, p) -> p.hostKeys().trusted(c));
    }

    /** rustguac's SQLite database, imported once ({@link RustguacImport}); run again, it skips what is here. */
    public static Operation<RustguacImport.Imported> importRustguac(java.nio.file.Path sqlite, Instant now) {
        return new Operation<>("import rustguac's database", (c, p) -> p.rustguac().run(c, sqlite, now));
    }

    public static Operation<Page<RecordingRow>> recordings(RecordingFilter filter) {
        return new Operation<>("read the recordings", (c, p) -> p.recordings().list(c, filter));
    }

    public static Operation<Optional<RecordingRow>> recording(String sessionId) {
        return new Operation<>("read the recording", (c, p) -> p.recordings().find(c, sessionId));
    }

    /** Recordings whose node is not among {@code liveNodes} and started before {@code before}: theirs to finish. */
    public static Operation<List<RecordingRow>> orphanedRecordings(Set<String> liveNodes, Instant before) {
        return new Operation<>("read the recordings of departed nodes", (c, p) -> p.recordings().orphaned(c,
                liveNodes, before));
    }

    /** What retention removes now ({@code Recordings#expired}). */
    public static Operation<List<RecordingRow>> expiredRecordings(Instant before, int maxCount,
            java.util.Map<String, Integer> perEntry) {
        return new Operation<>("read the recordings past retention", (c, p) -> p.recordings().expired(c, before,
                maxCount, perEntry));
    }
}
