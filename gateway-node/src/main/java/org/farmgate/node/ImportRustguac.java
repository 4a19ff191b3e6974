package org.farmgate.node;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.farmgate.durable.DurableStore;
import org.farmgate.durable.Operation;
import org.farmgate.durable.RustguacImport;
import org.farmgate.node.config.NodeConfig;

/**
 * {@code farmgate import-rustguac <rustguac.db>}: rustguac's history, people, mappings, tokens and audit logs written
 * into the database this node's configuration names, then exits. Run it before the cluster's first node starts (a
 * running cluster puts the database's tokens and people into its maps only when it starts from nothing), with the
 * node stopped when its database is the embedded one (H2 lets one process open its file).
 */
final class ImportRustguac {

    static final String COMMAND = "import-rustguac";

    private ImportRustguac() {
    }

    /** @return the process's exit status: 0 imported, 1 refused or failed (what and why on {@code out}) */
    static int run(NodeConfig config, Path sqlite, Clock clock, PrintStream out) {
        if (!config.records().keeps()) {
            out.println("nothing to import into: this configuration keeps no database (GW_DB_URL=none)");
            return 1;
        }
        try (DurableStore store = DurableStore.open(config.records().store())) {
            RustguacImport.Imported imported = store.run(Operation.importRustguac(sqlite, clock.instant()))
                    .toCompletableFuture().get(30, TimeUnit.MINUTES);
            out.printf("imported from %s into %s:%n  %d sessions, %d people, %d group mappings, %d tokens, "
                    + "%d audit events%n", sqlite, config.records().store().where(), imported.sessions(),
                    imported.people(), imported.mappings(), imported.tokens(), imported.auditEvents());
            imported.skipped().forEach(why -> out.println("  skipped " + why));
            Instant keptFrom = clock.instant().minus(config.records().historyRetention());
            if (imported.oldestSession() != null && imported.oldestSession().isBefore(keptFrom)) {
                out.printf("  note: its sessions go back to %s, older than this cluster keeps history "
                        + "(GW_HISTORY_RETENTION_DAYS=%d): the first purge after a node starts removes them; raise it "
                        + "before then to keep them%n", imported.oldestSession(),
                        config.records().historyRetention().toDays());
            }
            return 0;
        } catch (ExecutionException e) {
            out.println("import failed: " + e.getCause().getMessage());
            return 1;
        } catch (Exception e) {
            out.println("import failed: " + e);
            return 1;
        }
    }
}
