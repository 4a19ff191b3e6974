package org.farmgate.router.store;

import com.hazelcast.config.Config;
import org.farmgate.router.seal.SealSerializers;

/** Hazelcast members of a test's own cluster on loopback, finding each other over TCP, with our stream forms. */
public final class LoopbackMembers {

    private LoopbackMembers() {
    }

    /** A member of {@code cluster}, whose members listen from {@code firstPort} on, {@code size} of them at most. */
    public static Config config(String cluster, int firstPort, int size) {
        Config config = new Config().setClusterName(cluster);
        config.setProperty("hazelcast.phone.home.enabled", "false");
        config.getNetworkConfig().setPort(firstPort).setPortAutoIncrement(true);
        config.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        config.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
        config.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
        for (int port = firstPort; port < firstPort + size; port++) {
            config.getNetworkConfig().getJoin().getTcpIpConfig().setEnabled(true).addMember("127.0.0.1:" + port);
        }
        HazelcastSharedMap.serializers().forEach(config.getSerializationConfig()::addSerializerConfig);
        SealSerializers.serializers().forEach(config.getSerializationConfig()::addSerializerConfig);
        return config;
    }
}
