package org.farmgate.node.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.farmgate.model.CostModel;
import org.farmgate.model.Protocol;
import org.farmgate.node.target.Cidr;
import org.farmgate.node.target.TargetPolicy;

/**
 * A node's settings. Every key is documented in the README's configuration table; defaults make a fresh install
 * work on one host with a local guacd.
 */
public record NodeConfig(
        String nodeId,
        String httpHost,
        int httpPort,
        String adminToken,
        String guacdHost,
        int guacdPort,
        Duration guacdConnectTimeout,
        Duration guacdStepTimeout,
        TargetPolicy targets,
        Duration pendingTimeout,
        Duration maxSessionDuration,
        Duration finishedRetention,
        Duration reattachGrace,
        int maxSessions,
        UserLimits userLimits,
        int maxBodyBytes,
        ConnectionSettings connections,
        List<String> allowedOrigins,
        ZoneId defaultTimezone,
        int eventLoops,
        CostModel costModel,
        ClusterSettings cluster,
        ClusterSecurity security,
        CapacitySettings capacity,
        AddressBookSettings addressBook,
        ShareSettings shares,
        DriveSettings drives,
        OidcSettings oidc,
        AccountabilitySettings records,
        String sessionBanner,
        HostKeySettings hostKeys,
        Duration thumbnailInterval,
        RecordingSettings recordings) {

    public static final List<String> LOOPBACK_ONLY = List.of("127.0.0.0/8", "::1/128");

    public static NodeConfig from(ConfigSource source) {
        String nodeId = source.string("GW_NODE_ID", hostName());
        ClusterSettings cluster = ClusterSettings.from(source);
        AccountabilitySettings records = AccountabilitySettings.from(source, nodeId, cluster.hasPeers());
        return new NodeConfig(
                nodeId,
                source.string("GW_HTTP_HOST", "0.0.0.0"),
                source.integer("GW_HTTP_PORT", 8080, 0, 65535),
                adminToken(source),
                source.string("GW_GUACD_HOST", "127.0.0.1"),
                source.integer("GW_GUACD_PORT", 4822, 1, 65535),
                Duration.ofMillis(source.integer("GW_GUACD_CONNECT_TIMEOUT_MS", 5000, 1, 600_000)),
                Duration.ofMillis(source.integer("GW_GUACD_STEP_TIMEOUT_MS", 10_000, 1, 600_000)),
                targetPolicy(source),
                Duration.ofSeconds(source.integer("GW_SESSION_PENDING_TIMEOUT_SECS", 60, 1, 86_400)),
                Duration.ofSeconds(source.integer("GW_SESSION_MAX_DURATION_SECS", 28_800, 1, 30 * 86_400)),
                Duration.ofSeconds(source.integer("GW_SESSION_RETENTION_SECS", 300, 0, 86_400)),
                Duration.ofSeconds(source.integer("GW_REATTACH_GRACE_SECS", 60, 0, 86_400)),
                source.integer("GW_MAX_SESSIONS", 500, 1, 1_000_000),
                new UserLimits(source.integer("GW_MAX_SESSIONS_PER_USER", 50, 1, 1_000_000),
                        source.integer("GW_MAX_MEMORY_MB_PER_USER", 8192, 1, Integer.MAX_VALUE),
                        source.integer("GW_MAX_DISPLAY_WIDTH", 3840, 640, 8192),
                        source.integer("GW_MAX_DISPLAY_HEIGHT", 2160, 480, 8192)),
                source.integer("GW_MAX_BODY_BYTES", 65_536, 1024, 16 * 1024 * 1024),
                ConnectionSettings.from(source),
                source.list("GW_ALLOWED_ORIGINS", List.of()),
                timezone(source),
                source.integer("GW_EVENT_LOOPS", Runtime.getRuntime().availableProcessors(), 1, 1024),
                costModel(source),
                cluster,
                ClusterSecurity.from(source, nodeId, cluster),
                CapacitySettings.from(source),
                AddressBookSettings.from(source),
                ShareSettings.from(source),
                DriveSettings.from(source),
                OidcSettings.from(source),
                records,
                sessionBanner(source),
                HostKeySettings.from(source),
                // how old a session's thumbnail may be before the next ask makes a new one; 0 turns them off
                Duration.ofSeconds(source.integer("GW_THUMBNAIL_SECS", 5, 0, 3600)),
                RecordingSettings.from(source, cluster.hasPeers(), records.keeps()));
    }

    /**
     * The site's notice a person accepts before each session starts (rustguac's banner, for the whole site):
     * text, line breaks allowed, no other control character, at most 4000 characters; null for none.
     */
    private static String sessionBanner(ConfigSource source) {
        String banner = source.string("GW_SESSION_BANNER", null);
        if (banner == null || banner.isBlank()) {
            return null;
        }
        if (banner.length() > 4000) {
            throw new ConfigException("GW_SESSION_BANNER must be at most 4000 characters, got " + banner.length());
        }
        if (banner.chars().anyMatch(c -> Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t')) {
            throw new ConfigException("GW_SESSION_BANNER must be text: no control characters but line breaks and "
                    + "tabs");
        }
        return banner.strip();
    }

    /** Names the admin token's presence, never its value. */
    @Override
    public String toString() {
        return "NodeConfig[node=" + nodeId + ", http=" + httpHost + ":" + httpPort + ", guacd=" + guacdHost + ":"
                + guacdPort + ", adminToken=" + (adminToken == null ? "generated" : "set") + ", cluster=" + cluster
                + ", " + security + ", capacity=" + capacity + ", " + oidc + ", " + records + ", " + recordings + "]";
    }

    private static TargetPolicy targetPolicy(ConfigSource source) {
        Map<Protocol, List<Cidr>> allowed = new EnumMap<>(Protocol.class);
        for (Protocol protocol : Protocol.values()) {
            allowed.put(protocol, cidrs(source, "GW_ALLOWED_NETWORKS_" + protocol.name(), LOOPBACK_ONLY));
        }
        return new TargetPolicy(allowed);
    }

    /** A comma list of networks; a bad one is refused with the key's name. */
    static List<Cidr> cidrs(ConfigSource source, String key, List<String> fallback) {
        List<Cidr> networks = new ArrayList<>();
        for (String text : source.list(key, fallback)) {
            try {
                networks.add(Cidr.parse(text));
            } catch (IllegalArgumentException e) {
                throw new ConfigException(key + ": " + e.getMessage());
            }
        }
        return List.copyOf(networks);
    }

    /** At least 32 characters: a token is a password to every machine behind the gateway, guessed offline never. */
    private static String adminToken(ConfigSource source) {
        String token = Placeholders.refused("GW_ADMIN_TOKEN", source.string("GW_ADMIN_TOKEN", null));
        if (token != null && token.length() < 32) {
            throw new ConfigException("GW_ADMIN_TOKEN must be at least 32 characters of a random value (256 bits, "
                    + "for instance `openssl rand -base64 32`), got " + token.length());
        }
        return token;
    }

    private static ZoneId timezone(ConfigSource source) {
        String raw = source.string("GW_DEFAULT_TIMEZONE", null);
        if (raw == null) {
            return ZoneId.systemDefault();
        }
        try {
            return ZoneId.of(raw);
        } catch (RuntimeException e) {
            throw new ConfigException("GW_DEFAULT_TIMEZONE must be an IANA time zone such as Europe/Berlin, got '"
                    + raw + "'");
        }
    }

    private static CostModel costModel(ConfigSource source) {
        String profile = source.string("GW_COST_PROFILE", "measured");
        CostModel model = switch (profile) {
            case "measured" -> CostModel.MEASURED_GUACD_1_6;
            case "field-freerdp3" -> CostModel.FIELD_FREERDP3;
            default -> throw new ConfigException("GW_COST_PROFILE must be measured or field-freerdp3, got '"
                    + profile + "'");
        };
        for (Protocol protocol : Protocol.values()) {
            String key = "GW_COST_" + protocol.name() + "_MB";
            if (source.isSet(key)) {
                int flat = source.integer(key, 0, 1, 1_000_000);
                model = model.with(protocol, new CostModel.Cost(flat, 0));
            }
        }
        return model;
    }

    private static String hostName() {
        String fromEnv = System.getenv("HOSTNAME");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "node";
        }
    }
}
