package org.farmgate.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.farmgate.model.CostModel;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NodeConfigTest {

    @Test
    void defaultsServeASingleHostWithLocalGuacd() {
        NodeConfig config = NodeConfig.from(new ConfigSource(Map.of()));
        assertEquals(8080, config.httpPort());
        assertEquals("127.0.0.1", config.guacdHost());
        assertEquals(4822, config.guacdPort());
        assertEquals(Duration.ofSeconds(60), config.pendingTimeout());
        assertEquals("[127.0.0.0/8, ::1/128]", config.targets().allowedNetworks(Protocol.RDP).toString());
        assertEquals(CostModel.MEASURED_GUACD_1_6.estimateMb(Protocol.RDP, DisplaySize.DEFAULT),
                config.costModel().estimateMb(Protocol.RDP, DisplaySize.DEFAULT));
        assertEquals(0, config.capacity().placementChoices(), "every node ranked unless asked");
        assertEquals(2, NodeConfig.from(new ConfigSource(Map.of("GW_PLACEMENT_CHOICES", "2"))).capacity()
                .placementChoices());
    }

    @Test
    void theEnvironmentWinsOverTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("node.properties");
        Files.writeString(file, "GW_HTTP_PORT=9000\nGW_GUACD_HOST=guacd.internal\nGW_ALLOWED_NETWORKS_SSH=10.0.0.0/8\n");
        NodeConfig config = NodeConfig.from(ConfigSource.load(Map.of("GW_HTTP_PORT", "9001", "PATH", "/bin"), file));
        assertEquals(9001, config.httpPort());
        assertEquals("guacd.internal", config.guacdHost());
        assertEquals("[10.0.0.0/8]", config.targets().allowedNetworks(Protocol.SSH).toString());
    }

    @Test
    void costsCanBeChosenAndOverridden() {
        NodeConfig field = NodeConfig.from(new ConfigSource(Map.of("GW_COST_PROFILE", "field-freerdp3")));
        assertEquals(158, field.costModel().estimateMb(Protocol.RDP, DisplaySize.DEFAULT));
        NodeConfig flat = NodeConfig.from(new ConfigSource(Map.of("GW_COST_SSH_MB", "5")));
        assertEquals(5, flat.costModel().estimateMb(Protocol.SSH, new DisplaySize(1920, 1080, 96)));
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
            "GW_HTTP_PORT, abc, GW_HTTP_PORT must be a whole number, got 'abc'",
            "GW_HTTP_PORT, 70000, GW_HTTP_PORT must be between 0 and 65535, got 70000",
            "GW_ALLOWED_NETWORKS_VNC, 10.0.0.0/40, GW_ALLOWED_NETWORKS_VNC: '10.0.0.0/40' has a prefix length outside 0-32",
            "GW_DEFAULT_TIMEZONE, Nowhere/Here, GW_DEFAULT_TIMEZONE must be an IANA time zone",
            "GW_PLACEMENT_CHOICES, -1, GW_PLACEMENT_CHOICES must be between 0 and 64, got -1",
            "GW_COST_PROFILE, cheap, GW_COST_PROFILE must be measured or field-freerdp3, got 'cheap'",
            "GW_ADMIN_TOKEN, a, GW_ADMIN_TOKEN must be at least 32 characters",
            "GW_SESSION_BANNER, 'Authorised\u0007use only', GW_SESSION_BANNER must be text: no control characters",
            "GW_SSH_HOST_KEYS, ask, GW_SSH_HOST_KEYS must be accept-new, strict or off, got 'ask'",
            "GW_SSH_HOST_KEY_ORDER, 'ssh-ed25519,ssh-foo', GW_SSH_HOST_KEY_ORDER: unknown or unsupported SSH host-key "
                    + "algorithm 'ssh-foo'",
            "GW_ADMIN_TOKEN, CHANGE-ME-to-a-long-random-value-of-64-characters, GW_ADMIN_TOKEN is still the example's",
            "GW_CLUSTER_KEYSTORE_PASSWORD, change-me-to-a-long-random-value, GW_CLUSTER_KEYSTORE_PASSWORD is still the "
                    + "example's placeholder"})
    void badValuesNameTheirKey(String key, String value, String message) {
        ConfigException error = assertThrows(ConfigException.class,
                () -> NodeConfig.from(new ConfigSource(Map.of(key, value))));
        assertEquals(true, error.getMessage().startsWith(message), error.getMessage());
    }

    @Test
    void aMissingFileIsAnError(@TempDir Path dir) {
        ConfigException error = assertThrows(ConfigException.class,
                () -> ConfigSource.load(Map.of(), dir.resolve("absent.properties")));
        assertEquals(true, error.getMessage().contains("absent.properties"));
    }
}
