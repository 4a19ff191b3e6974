package org.farmgate.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.node.config.ConfigException;
import org.farmgate.node.config.ConfigSource;
import org.farmgate.node.config.NodeConfig;

/**
 * The configuration under arbitrary values: a node's settings parse into a configuration or fail with a
 * ConfigException naming the setting, never with another exception (a start that dies with a stack trace instead of
 * a sentence). Settings that name files are left out: they would read whatever the fuzzer names.
 */
class ConfigFuzzTest {

    private static final List<String> KEYS = List.of("GW_ADDRESSBOOK_TTL_SECS", "GW_ADMIN_TOKEN",
            "GW_ADVERTISE_HOST", "GW_ALLOWED_NETWORKS_SSH", "GW_ALLOWED_NETWORKS_RDP", "GW_ALLOWED_ORIGINS",
            "GW_CLUSTER_ENABLED", "GW_CLUSTER_HOST", "GW_CLUSTER_INSECURE", "GW_CLUSTER_MEMBERS",
            "GW_CLUSTER_MEMBER_TIMEOUT_SECS", "GW_CLUSTER_MIN_MEMBERS", "GW_CLUSTER_NAME", "GW_CLUSTER_PORT",
            "GW_COST_RDP_MB", "GW_COST_CALIBRATION", "GW_COST_CALIBRATION_MAX_FACTOR", "GW_COST_CALIBRATION_MIN_FACTOR",
            "GW_COST_PROFILE", "GW_DEFAULT_TIMEZONE", "GW_DRAIN_GRACE_SECS", "GW_EVENTBUS_PORT", "GW_EVENT_LOOPS",
            "GW_GUACD_CONNECT_TIMEOUT_MS", "GW_GUACD_HOST", "GW_GUACD_PORT", "GW_GUACD_PROBE_MS", "GW_HEARTBEAT_MS",
            "GW_HTTP_HOST", "GW_HTTP_PORT", "GW_IDLE_TIMEOUT_SECS", "GW_MAX_BODY_BYTES",
            "GW_MAX_CONNECTIONS_PER_ADDRESS", "GW_MAX_DISPLAY_WIDTH", "GW_MAX_MEMORY_MB_PER_USER", "GW_MAX_SESSIONS",
            "GW_MAX_SESSIONS_PER_USER", "GW_MEMORY_BUDGET_MB", "GW_MEMORY_MARGIN_MB", "GW_NODE_ID",
            "GW_PEER_TIMEOUT_MS", "GW_RELAY_PORT", "GW_REQUEST_TIMEOUT_SECS", "GW_SESSION_PENDING_TIMEOUT_SECS",
            "GW_VAULT_BASE", "GW_VAULT_PARALLELISM", "GW_VAULT_TIMEOUT_MS");

    @FuzzTest(maxDuration = "10s")
    void settingsParseOrNameTheSetting(FuzzedDataProvider data) {
        Map<String, String> settings = new HashMap<>();
        settings.put("GW_CLUSTER_ENABLED", "false");
        int count = data.consumeInt(1, 6);
        for (int i = 0; i < count; i++) {
            settings.put(data.pickValue(KEYS), data.consumeString(40));
        }
        try {
            NodeConfig.from(new ConfigSource(settings));
        } catch (ConfigException refused) {
            assertTrue(refused.getMessage() != null && refused.getMessage().contains("GW_"),
                    "a refusal that names no setting: " + refused.getMessage());
        }
    }
}
