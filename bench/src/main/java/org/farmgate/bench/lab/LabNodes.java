package org.farmgate.bench.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A node's settings on host K of a {@link NetnsLab}: what every tool that runs a cluster there gives it. */
public final class LabNodes {

    public static final int CLUSTER_PORT = 5701;

    private LabNodes() {
    }

    /**
     * Node K of a secured cluster named {@code cluster} whose members are {@code members} (host numbers), its API on
     * {@code httpPort} with {@code adminToken}, its guacd at this machine's end of the bridge on {@code guacdPort};
     * limits high enough that no test load meets them. The caller adds what its run needs.
     */
    public static Map<String, String> environment(int k, List<Integer> members, String cluster, Path keys,
            String adminToken, int httpPort, int guacdPort) {
        List<String> addresses = new ArrayList<>();
        for (int member : members) {
            addresses.add(NetnsLab.host(member) + ":" + CLUSTER_PORT);
        }
        Map<String, String> env = new HashMap<>();
        env.put("GW_NODE_ID", "node-" + k);
        env.put("GW_ADMIN_TOKEN", adminToken);
        env.put("GW_HTTP_HOST", NetnsLab.host(k));
        env.put("GW_HTTP_PORT", String.valueOf(httpPort));
        env.put("GW_CLUSTER_HOST", NetnsLab.host(k));
        env.put("GW_CLUSTER_PORT", String.valueOf(CLUSTER_PORT));
        env.put("GW_CLUSTER_MEMBERS", String.join(",", addresses));
        env.put("GW_CLUSTER_NAME", cluster);
        env.put("GW_CLUSTER_SECRETS_DIR", keys.toString());
        env.put("GW_GUACD_HOST", NetnsLab.ROOT);
        env.put("GW_GUACD_PORT", String.valueOf(guacdPort));
        env.put("GW_MEMORY_BUDGET_MB", "100000");
        env.put("GW_MAX_SESSIONS_PER_USER", "100000");
        env.put("GW_MAX_MEMORY_MB_PER_USER", "100000000");
        env.put("GW_LOG_LEVEL", "WARN");
        return env;
    }
}
