package org.farmgate.durable;

import static org.farmgate.durable.Rows.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.farmgate.error.ConflictException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** People and group mappings on both databases. */
class PeopleTest {

    private static Fact.PersonSignedIn signIn(String subject, String email, String role, int atSecond) {
        return new Fact.PersonSignedIn("oidc:" + subject, subject, subject + " name", email, role,
                List.of("farm", "bad\ngroup"), T0.plusSeconds(atSecond));
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void signInsKeepFirstAndLastSeenWhateverOrderTheyLand(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            store.record(signIn("alice", "alice@example.com", "operator", 60));
            store.record(signIn("alice", "alice@example.com", "admin", 10)); // an older one from a late spool
            store.record(signIn("alice", "alice@example.com", "viewer", 30));
            store.record(signIn("alice", "alice@example.com", "viewer", 30)); // written twice
            HistoryTest.awaitWritten(store, 4);
            PersonRow alice = Rows.await(store.run(Operation.person("oidc:alice"))).orElseThrow();
            assertEquals(T0.plusSeconds(10), alice.firstSeen());
            assertEquals(T0.plusSeconds(60), alice.lastSeen());
            assertEquals("operator", alice.role(), "the latest sign-in's role");
            assertEquals(List.of("farm"), alice.groups(), "a group name with a line break is not kept");
            assertFalse(alice.disabled());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void anAdminsChangesAreTheExceptionsRestored(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            store.record(signIn("alice", "alice@example.com", "operator", 1));
            store.record(signIn("bob", "bob@example.com", "viewer", 2));
            store.record(signIn("carol", "carol@example.com", "viewer", 3));
            HistoryTest.awaitWritten(store, 3);
            PersonRow bob = Rows.await(store.run(Operation.setRole("bob@example.com", "poweruser", "admin",
                    T0.plusSeconds(5)))).orElseThrow();
            assertEquals("poweruser", bob.roleOverride(), "found by e-mail address");
            assertTrue(Rows.await(store.run(Operation.setDisabled("oidc:carol", true, "admin", T0))).orElseThrow()
                    .disabled());
            assertEquals(Optional.empty(), Rows.await(store.run(Operation.setRole("oidc:nobody", "admin", "admin",
                    T0))));
            assertEquals(List.of("oidc:bob", "oidc:carol"), Rows.await(store.run(Operation.peopleExceptions()))
                    .stream().map(PersonRow::id).sorted().toList());
            assertEquals(3, Rows.await(store.run(Operation.people())).size());
            assertTrue(Rows.await(store.run(Operation.deletePerson("oidc:carol"))).isPresent());
            assertEquals(List.of("oidc:bob"), Rows.await(store.run(Operation.peopleExceptions())).stream()
                    .map(PersonRow::id).toList());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void twoPeopleWithOneAddressAreNamedByTheirIds(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            store.record(signIn("a1", "shared@example.com", "viewer", 1));
            store.record(signIn("a2", "shared@example.com", "viewer", 2));
            HistoryTest.awaitWritten(store, 2);
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> Rows.await(store.run(Operation.person("shared@example.com"))));
            assertInstanceOf(ConflictException.class, failed.getCause());
            assertTrue(Rows.await(store.run(Operation.person("oidc:a2"))).isPresent());
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aGroupIsMappedOnce(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            GroupMapping admins = Rows.await(store.run(Operation.addGroupMapping("farm-admins", "admin", "root", T0)))
                    .orElseThrow();
            assertEquals(Optional.empty(), Rows.await(store.run(Operation.addGroupMapping("farm-admins", "viewer",
                    "root", T0))));
            Rows.await(store.run(Operation.addGroupMapping("o'brien; DROP TABLE people", "viewer", "root", T0)));
            assertEquals("operator", Rows.await(store.run(Operation.setGroupMappingRole(admins.id(), "operator")))
                    .orElseThrow().role());
            assertEquals(Optional.empty(), Rows.await(store.run(Operation.setGroupMappingRole(admins.id() + 1000,
                    "admin"))));
            assertEquals(List.of("farm-admins", "o'brien; DROP TABLE people"), Rows.await(store.run(
                    Operation.groupMappings())).stream().map(GroupMapping::group).toList());
            assertTrue(Rows.await(store.run(Operation.deleteGroupMapping(admins.id()))).isPresent());
            assertEquals(Optional.empty(), Rows.await(store.run(Operation.deleteGroupMapping(admins.id()))));
            assertEquals(1, Rows.await(store.run(Operation.groupMappings())).size());
            assertEquals(0, Rows.await(store.run(Operation.people())).size(), "the people table is still there");
        }
    }
}
