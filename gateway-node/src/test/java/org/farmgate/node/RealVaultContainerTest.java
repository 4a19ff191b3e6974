package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The address book against a real Vault (dev server, KV v2 at secret/). Runs where Docker is available and is
 * skipped elsewhere; the synthetic Vault follows the same captured answers.
 */
@Testcontainers(disabledWithoutDocker = true)
class RealVaultContainerTest {

    private static final String TOKEN = "farmgate-dev-root";

    @Container
    private static final GenericContainer<?> VAULT = new GenericContainer<>("hashicorp/vault:1.17")
            .withEnv("VAULT_DEV_ROOT_TOKEN_ID", TOKEN).withExposedPorts(8200);

    @Test
    void readsARustguacAddressBook() throws Exception {
        String address = "http://" + VAULT.getHost() + ":" + VAULT.getMappedPort(8200);
        put(address, "rustguac/shared/lab/.config", "{\"allowed_groups\":[\"ops\"],\"inherit_from_parent\":false}");
        put(address, "rustguac/shared/lab/sw-1",
                "{\"type\":\"ssh\",\"hostname\":\"127.0.0.1\",\"port\":22,\"password\":\"real-vault-pw\"}");
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("VAULT_ADDR", address,
                "VAULT_TOKEN", TOKEN))) {
            HttpResponse<String> response = node.request("GET", "/api/addressbook", TestNode.ADMIN, null);
            assertEquals(200, response.statusCode(), response.body());
            JsonNode entry = TestNode.json(response).get("folders").get(0).get("entries").get(0);
            assertEquals("sw-1", entry.get("name").asText());
            assertEquals(22, entry.get("port").asInt());
            assertFalse(response.body().contains("real-vault-pw"));
        }
    }

    private static void put(String address, String path, String data) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(address + "/v1/secret/data/" + path)).header("X-Vault-Token", TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString("{\"data\":" + data + "}")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
    }
}
