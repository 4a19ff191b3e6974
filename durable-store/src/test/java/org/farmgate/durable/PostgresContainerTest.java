package org.farmgate.durable;

import static org.farmgate.durable.Rows.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The store on PostgreSQL 15 in a container, with a password, as a cluster runs it: migrated from nothing, a
 * session's row, the audit chain and a person written and read back. Runs where Docker is available and is skipped
 * elsewhere (there the suite's own PostgreSQL, started by .ci/run, runs every other test of this module).
 */
@Testcontainers(disabledWithoutDocker = true)
class PostgresContainerTest {

    @Container
    private static final GenericContainer<?> POSTGRES = new GenericContainer<>("postgres:15")
            .withEnv("POSTGRES_USER", "farmgate").withEnv("POSTGRES_PASSWORD", "container-secret")
            .withEnv("POSTGRES_DB", "farmgate").withExposedPorts(5432)
            .waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*\\s", 2)
                    .withStartupTimeout(Duration.ofMinutes(2)));

    @Test
    void historyAuditAndPeopleRoundTrip() throws Exception {
        String url = "jdbc:postgresql://" + POSTGRES.getHost() + ":" + POSTGRES.getMappedPort(5432) + "/farmgate";
        StoreSettings settings = new StoreSettings(url, "farmgate", "container-secret", 4, Duration.ofSeconds(5), 1000,
                Databases.tempDir().resolve("outbox.spool"), 1L << 20, "node-1");
        try (DurableStore store = DurableStore.open(settings)) {
            SessionRow row = Rows.opened("s-1", "alice", "node-1", T0);
            store.record(new Fact.SessionOpened(row));
            store.record(Rows.closed(row, T0.plusSeconds(90), "completed", "completed", null));
            store.record(Rows.audit("session.create", "alice", T0));
            store.record(new Fact.PersonSignedIn("oidc:alice", "alice", "Alice", "alice@example.com", "operator",
                    List.of("ops"), T0));
            HistoryTest.awaitWritten(store, 4);
            SessionRow back = Rows.await(store.run(Operation.sessions(SessionFilter.all()))).rows().get(0);
            assertEquals(90L, back.durationSecs());
            assertTrue(Rows.await(store.run(Operation.verifyAudit())).intact());
            assertEquals("Alice", Rows.await(store.run(Operation.person("alice@example.com"))).orElseThrow().name());
        }
    }
}
