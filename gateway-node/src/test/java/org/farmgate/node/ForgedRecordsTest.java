package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.map.IMap;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.farmgate.model.NodeAddress;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Role;
import org.farmgate.node.auth.Secrets;
import org.farmgate.node.auth.TokenRecord;
import org.farmgate.node.runtime.ClusterMaps;
import org.farmgate.router.seal.Sealed;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a member without the cluster key writes into the shared maps is never believed: a token record that would
 * make a stranger's token admin, and a registry entry that would send sessions and relays to another address, are
 * ignored on every node and counted.
 */
class ForgedRecordsTest {

    private static TestCluster cluster;

    @BeforeAll
    static void start() throws Exception {
        cluster = TestCluster.start(2, n -> Map.of("GW_MEMORY_BUDGET_MB", "1000"));
    }

    @AfterAll
    static void stop() throws Exception {
        cluster.close();
    }

    @Test
    void aForgedTokenRecordGrantsNothing() throws Exception {
        String token = "attacker-token-0123456789abcdef0123456789abcdef";
        String hash = Secrets.sha256Hex(token);
        TokenRecord admin = new TokenRecord("tok_mallory", "mallory", Role.ADMIN, Set.of(), Instant.now(), null, hash);
        IMap<String, Object> tokens = map(ClusterMaps.TOKENS.name());
        tokens.set(hash, admin); // unsealed, as a member without the key would write it
        assertEquals(401, cluster.node(1).request("GET", "/api/sessions", token, null).statusCode());
        tokens.set(hash, new Sealed(ClusterMaps.TOKENS.name(), hash, 1, new byte[] {1}, new byte[32])); // a guessed seal
        assertEquals(401, cluster.node(2).request("GET", "/api/sessions", token, null).statusCode());
        assertTrue(cluster.node(1).request("GET", "/metrics", null, null).body()
                .contains("farmgate_shared_records_rejected_total{map=\"farmgate.tokens\",reason=\"forged\"}"));
    }

    @Test
    void aForgedRegistryEntryPlacesNothingAndRedirectsNothing() throws Exception {
        IMap<String, Object> nodes = map(ClusterMaps.NODES.name());
        NodeLoad real = cluster.node(1).node.agent().lastPublished();
        // node-1 with a huge budget and an address of the attacker's choosing: would win every placement
        NodeLoad forged = new NodeLoad("node-evil", new NodeAddress(real.address().memberId(), "203.0.113.9", 443,
                443), new org.farmgate.model.NodeLimits(1_000_000, 0, 100_000, 0), real.costModel(),
                real.measurements(), real.reservations(), false, Instant.now());
        nodes.set("node-evil", forged);
        for (int i = 0; i < 5; i++) {
            String owner = TestNode.json(cluster.node(2).request("POST", "/api/sessions", TestNode.ADMIN,
                    "{\"hostname\":\"127.0.0.1\"}")).get("node_id").asText();
            assertNotEquals("node-evil", owner);
        }
        assertEquals(2, TestNode.json(cluster.node(1).request("GET", "/api/cluster", TestNode.ADMIN, null))
                .get("nodes").size(), "the forged entry is not shown as a node");
    }

    private static IMap<String, Object> map(String name) {
        return cluster.node(1).node.runtime().hazelcast().getMap(name);
    }
}
