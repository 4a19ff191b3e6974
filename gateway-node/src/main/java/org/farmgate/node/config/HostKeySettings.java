package org.farmgate.node.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.farmgate.node.hostkey.HostKeyPolicy;
import org.farmgate.node.hostkey.HostKeyProbe;

/**
 * How SSH targets' host keys are checked ({@code GW_SSH_HOST_KEYS}, see {@link HostKeyPolicy}). The probe asks for
 * keys in guacd's libssh2's order, learnt from guacd at start, so that the key it reads is the one guacd is shown;
 * {@code GW_SSH_HOST_KEY_ORDER} gives it instead (a guacd that cannot reach the node's loopback), and is the order used
 * until it is learnt.
 */
public record HostKeySettings(HostKeyPolicy policy, List<String> order, boolean orderGiven, Duration probeTimeout) {

    /** Whether the node learns guacd's own order at start ({@link org.farmgate.node.hostkey.GuacdKeyOrder}). */
    public boolean learnsOrder() {
        return policy != HostKeyPolicy.OFF && !orderGiven;
    }

    public static HostKeySettings from(ConfigSource source) {
        String asked = source.string("GW_SSH_HOST_KEYS", "accept-new").trim().toLowerCase(Locale.ROOT);
        HostKeyPolicy policy = HostKeyPolicy.parse(asked);
        if (policy == null) {
            throw new ConfigException("GW_SSH_HOST_KEYS must be accept-new, strict or off, got '" + asked + "'");
        }
        List<String> order = source.list("GW_SSH_HOST_KEY_ORDER", HostKeyProbe.LIBSSH2_ORDER);
        try {
            HostKeyProbe.signatures(order);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("GW_SSH_HOST_KEY_ORDER: " + e.getMessage());
        }
        return new HostKeySettings(policy, List.copyOf(order), source.isSet("GW_SSH_HOST_KEY_ORDER"),
                Duration.ofSeconds(source.integer(
                "GW_SSH_HOST_KEY_TIMEOUT_SECS", 10, 1, 120)));
    }
}
