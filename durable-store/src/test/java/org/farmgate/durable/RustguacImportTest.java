package org.farmgate.durable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.testkit.db.RustguacDatabase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** rustguac 1.9.7's database imported into both of ours: every kind of row, once however often it is run. */
class RustguacImportTest {

    private static final Instant NOW = Instant.parse("2026-06-01T00:00:00Z");

    @ParameterizedTest
    @EnumSource(Databases.class)
    void everyKindOfRowLandsOnceAndTheChainHolds(Databases kind) throws Exception {
        Path rustguac = RustguacDatabase.create();
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            RustguacImport.Imported first = Rows.await(store.run(Operation.importRustguac(rustguac, NOW)));
            assertEquals(3, first.sessions());
            assertEquals(2, first.people(), "dan has no subject");
            assertEquals(2, first.mappings());
            assertEquals(2, first.tokens(), first::toString); // the admin key and alice's token
            assertEquals(2, first.auditEvents());
            assertEquals(4, first.skipped().size(), first.skipped()::toString);
            assertTrue(first.skipped().stream().anyMatch(why -> why.contains("office-only") && why.contains(
                    "10.0.0.0/8")), first.skipped()::toString);

            Map<String, SessionRow> rows = Rows.await(store.run(Operation.sessions(SessionFilter.all()))).rows()
                    .stream().collect(Collectors.toMap(SessionRow::sessionId, Function.identity()));
            SessionRow completed = rows.get("7a1f0000-0000-4000-8000-000000000001");
            assertEquals("completed", completed.status());
            assertEquals(5400L, completed.durationSecs());
            assertEquals("oidc:sub-alice", completed.ownerId());
            assertEquals("shared/prod/db1", completed.entry());
            assertEquals("rustguac", completed.nodeId());
            assertEquals("error", rows.get("7a1f0000-0000-4000-8000-000000000002").status());
            SessionRow leftOpen = rows.get("7a1f0000-0000-4000-8000-000000000003");
            assertEquals("lost", leftOpen.status());
            assertEquals(0L, leftOpen.durationSecs(), "its end is unknown: not a day-long session");
            assertEquals(3, Rows.await(store.run(Operation.summary(SessionFilter.all()))).totalSessions(),
                    "the daily totals count imported rows");

            Map<String, PersonRow> people = Rows.await(store.run(Operation.people())).stream()
                    .collect(Collectors.toMap(PersonRow::email, Function.identity()));
            assertNull(people.get("alice@farm.example").roleOverride(), "alice's role is her group's");
            assertEquals(Instant.parse("2026-03-01T12:00:00Z"), people.get("alice@farm.example").lastSeen());
            assertEquals("poweruser", people.get("bob@farm.example").roleOverride(), "bob's was given by hand");
            assertTrue(people.get("bob@farm.example").disabled());

            Map<String, TokenRow> tokens = Rows.await(store.run(Operation.activeTokens(NOW))).stream()
                    .collect(Collectors.toMap(TokenRow::hash, Function.identity()));
            assertEquals("admin", tokens.get(RustguacDatabase.sha256(RustguacDatabase.ADMIN_KEY)).role());
            TokenRow personal = tokens.get(RustguacDatabase.sha256(RustguacDatabase.USER_TOKEN));
            assertEquals("operator", personal.role(), "capped by its max_role");
            assertEquals("oidc:sub-alice", personal.ownerId());
            assertEquals(List.of("farm-admins", "everyone"), personal.groups());

            assertEquals(List.of("rustguac.addressbook.create_entry", "rustguac.token.created"), Rows.await(
                    store.run(Operation.audit(AuditFilter.all()))).rows().stream().map(row -> row.event().action()).sorted()
                    .toList());
            assertTrue(Rows.await(store.run(Operation.verifyAudit())).intact());

            RustguacImport.Imported again = Rows.await(store.run(Operation.importRustguac(rustguac, NOW)));
            assertEquals(List.of(0, 0, 0), List.of(again.people(), again.mappings(), again.tokens()));
            assertEquals(3, Rows.await(store.run(Operation.summary(SessionFilter.all()))).totalSessions(),
                    "nothing twice");
            assertEquals(2, Rows.await(store.run(Operation.audit(AuditFilter.all()))).total());
        }
    }

    @Test
    void aMissingOrForeignFileIsRefusedByName() throws Exception {
        try (DurableStore store = DurableStore.open(Databases.H2.fresh("node-1"))) {
            Path missing = Path.of("/nonexistent/rustguac.db");
            ExecutionException absent = assertThrows(ExecutionException.class,
                    () -> Rows.await(store.run(Operation.importRustguac(missing, NOW))));
            assertInstanceOf(InvalidRequestException.class, absent.getCause());
            assertTrue(absent.getCause().getMessage().contains("no rustguac database at /nonexistent"));
            Path text = Files.writeString(Files.createTempFile("not-sqlite", ".db"), "hello");
            ExecutionException foreign = assertThrows(ExecutionException.class,
                    () -> Rows.await(store.run(Operation.importRustguac(text, NOW))));
            assertInstanceOf(InvalidRequestException.class, foreign.getCause(), foreign::toString);
            assertTrue(foreign.getCause().getMessage().contains("cannot read rustguac's database"));
        }
    }
}
