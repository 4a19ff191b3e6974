package org.farmgate.durable;

import static org.farmgate.durable.Rows.T0;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Trusted SSH host keys on both databases, written from facts that may land in any order. */
class HostKeysTest {

    private static Fact.HostKeyKept kept(String host, int port, String key, String how, Instant at) {
        return new Fact.HostKeyKept(new HostKeyRow(host, port, key, "SHA256:" + key.hashCode(), how, "alice",
                how.equals("first-use") ? "s-" + at.getEpochSecond() : null, at));
    }

    private static List<String> trusted(DurableStore store) throws Exception {
        return Rows.await(store.run(Operation.trustedHostKeys())).stream()
                .map(row -> row.host() + ":" + row.port() + " " + row.hostKey() + " " + row.how()).toList();
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void theNewestWriteStandsWhateverOrderTheyLand(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            store.record(kept("web1", 22, "ssh-ed25519 NEW", "pinned", T0.plusSeconds(20)));
            store.record(kept("web1", 22, "ssh-ed25519 OLD", "first-use", T0.plusSeconds(10))); // late, from a spool
            store.record(kept("db1", 2222, "ssh-ed25519 DB", "first-use", T0.plusSeconds(5)));
            store.record(kept("db1", 2222, "ssh-ed25519 DB", "first-use", T0.plusSeconds(5))); // written twice
            HistoryTest.awaitWritten(store, 4);
            assertEquals(List.of("db1:2222 ssh-ed25519 DB first-use", "web1:22 ssh-ed25519 NEW pinned"),
                    trusted(store));
        }
    }

    @ParameterizedTest
    @EnumSource(Databases.class)
    void aForgottenKeyIsNotBroughtBackByALateTrust(Databases kind) throws Exception {
        try (DurableStore store = DurableStore.open(kind.fresh("node-1"))) {
            store.record(kept("web1", 22, "ssh-ed25519 OLD", "first-use", T0.plusSeconds(10)));
            store.record(new Fact.HostKeyForgotten("web1", 22, "admin", T0.plusSeconds(30)));
            store.record(kept("web1", 22, "ssh-ed25519 OLD", "first-use", T0.plusSeconds(20))); // late
            store.record(new Fact.HostKeyForgotten("db1", 22, "admin", T0.plusSeconds(30))); // never trusted
            HistoryTest.awaitWritten(store, 4);
            assertEquals(List.of(), trusted(store));
            store.record(kept("web1", 22, "ssh-ed25519 NEW", "first-use", T0.plusSeconds(40)));
            HistoryTest.awaitWritten(store, 5);
            assertEquals(List.of("web1:22 ssh-ed25519 NEW first-use"), trusted(store), "trusted again after");
        }
    }
}
