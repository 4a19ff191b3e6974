package org.farmgate.node.config;

import java.time.Duration;
import java.util.List;

/**
 * How a node joins its cluster.
 *
 * @param enabled false runs the node alone, without Hazelcast (no cluster port is opened)
 * @param host the address the cluster member binds and announces; null: loopback when there is nobody to join,
 *     else the address Hazelcast picks
 * @param members {@code host:port} of members to join by TCP-IP; empty and no Kubernetes DNS: a cluster of one
 * @param kubernetesServiceDns headless service to discover members by DNS instead of the list, or null
 * @param minMembers split-brain protection: below this many members the maps that must not fork refuse writes
 *     (1 turns it off)
 * @param advertiseHost the host other nodes and load balancers reach this node's HTTP port on
 * @param peerTimeout how long a node waits for another's answer before the outcome counts as unknown
 * @param strangerGrace how long a member may stay in the cluster without proving itself a node (a registry entry
 *     sealed with the cluster key) before it is shown as a stranger, and expelled
 * @param expelStrangers whether the coordinator expels strangers past their grace (on by default)
 */
public record ClusterSettings(boolean enabled, String name, String host, int port, List<String> members,
        String kubernetesServiceDns, int minMembers, String advertiseHost, Duration heartbeat,
        Duration memberTimeout, Duration peerTimeout, Duration strangerGrace, boolean expelStrangers) {

    /** Whether anyone else can be in this cluster. */
    public boolean expectsOthers() {
        return !members.isEmpty() || kubernetesServiceDns != null;
    }

    static ClusterSettings from(ConfigSource source) {
        List<String> members = source.list("GW_CLUSTER_MEMBERS", List.of());
        for (String member : members) {
            if (!member.matches("[A-Za-z0-9_.\\-\\[\\]:]+(:\\d{1,5})?")) {
                throw new ConfigException("GW_CLUSTER_MEMBERS: '" + member + "' is not host or host:port");
            }
        }
        String k8s = source.string("GW_CLUSTER_K8S_SERVICE_DNS", null);
        String host = source.string("GW_CLUSTER_HOST", null);
        if (host == null && members.isEmpty() && k8s == null) {
            host = "127.0.0.1"; // nobody to join: keep the unauthenticated cluster port off the network
        }
        return new ClusterSettings(
                source.bool("GW_CLUSTER_ENABLED", true),
                source.string("GW_CLUSTER_NAME", "farmgate"),
                host,
                source.integer("GW_CLUSTER_PORT", 5701, 1, 65535),
                members,
                k8s,
                source.integer("GW_CLUSTER_MIN_MEMBERS", 1, 1, 1000),
                source.string("GW_ADVERTISE_HOST", null),
                Duration.ofMillis(source.integer("GW_HEARTBEAT_MS", 1500, 100, 60_000)),
                Duration.ofSeconds(source.integer("GW_CLUSTER_MEMBER_TIMEOUT_SECS", 5, 2, 600)),
                Duration.ofMillis(source.integer("GW_PEER_TIMEOUT_MS", 10_000, 100, 120_000)),
                // Long against a node's start (join, fences, listen, first beat: a few seconds on a slow host), since
                // a node expelled for being slow starts over; short against a stranger's stay.
                Duration.ofSeconds(source.integer("GW_CLUSTER_STRANGER_GRACE_SECS", 20, 2, 3600)),
                source.bool("GW_CLUSTER_EXPEL_STRANGERS", true));
    }

    /** Whether there are other nodes to join: a node with none is a node alone, whatever Hazelcast runs. */
    public boolean hasPeers() {
        return enabled && (!members.isEmpty() || kubernetesServiceDns != null);
    }

    /** A node whose beat has not changed this long takes no new session, and may be declared gone: four beats. */
    public Duration staleAfter() {
        return heartbeat.multipliedBy(4);
    }
}
