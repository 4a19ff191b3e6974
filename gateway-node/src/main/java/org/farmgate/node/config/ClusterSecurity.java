package org.farmgate.node.config;

import io.vertx.core.net.PfxOptions;
import io.vertx.core.net.TCPSSLOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The secret material a clustered node proves itself with: its key and certificate (a PKCS#12 keystore signed by
 * the cluster CA), the CAs it accepts peers by (a PKCS#12 truststore; two during a CA rotation), and the cluster
 * keys that seal shared records (the first signs, every one verifies, so a key rotates without stopping the
 * cluster). {@code bin/farmgate-keys} makes all of it; {@code GW_CLUSTER_SECRETS_DIR} names such a directory, or
 * each file is named on its own.
 *
 * <p>Open-source Hazelcast authenticates nobody, so a clustered node refuses to start without this material unless
 * the operator says {@code GW_CLUSTER_INSECURE=true}; a node running alone needs none of it.
 *
 * @param eventBusPort the fixed port of the event bus (mutual TLS), on the cluster address
 * @param relayPort the port of the internal relay listener (mutual TLS), on the cluster address
 * @param eventBusPublicPort the event-bus port other nodes are told to use (behind a NAT or a proxy), 0: the port
 * @param relayPublicPort the relay port other nodes are told to use, 0: the port
 * @param tlsEngine the TLS implementation of those channels
 */
public record ClusterSecurity(Path keystore, String keystorePassword, Path truststore, String truststorePassword,
        List<byte[]> clusterKeys, boolean insecure, int eventBusPort, int relayPort, int eventBusPublicPort,
        int relayPublicPort, TlsEngine tlsEngine) {

    public ClusterSecurity {
        clusterKeys = List.copyOf(clusterKeys);
    }

    /** Whether node-to-node channels speak mutual TLS and shared records are sealed. */
    public boolean secured() {
        return keystore != null;
    }

    static ClusterSecurity from(ConfigSource source, String nodeId, ClusterSettings cluster) {
        int eventBusPort = source.integer("GW_EVENTBUS_PORT", 5702, 0, 65535);
        int relayPort = source.integer("GW_RELAY_PORT", 5703, 0, 65535);
        int eventBusPublicPort = source.integer("GW_EVENTBUS_PUBLIC_PORT", 0, 0, 65535);
        int relayPublicPort = source.integer("GW_RELAY_PUBLIC_PORT", 0, 0, 65535);
        boolean insecure = source.bool("GW_CLUSTER_INSECURE", false);
        String dir = source.string("GW_CLUSTER_SECRETS_DIR", null);
        Path base = dir == null ? null : Path.of(dir);
        Path keystore = path(source, "GW_CLUSTER_KEYSTORE", base == null ? null : base.resolve(nodeId + ".p12"));
        Path truststore = path(source, "GW_CLUSTER_TRUSTSTORE", base == null ? null : base.resolve("truststore.p12"));
        Path keyFile = path(source, "GW_CLUSTER_KEY_FILE", base == null ? null : base.resolve("cluster.key"));
        String password = Placeholders.refused("GW_CLUSTER_KEYSTORE_PASSWORD", secret(source,
                "GW_CLUSTER_KEYSTORE_PASSWORD", base == null ? null : base.resolve("password")));
        String trustPassword = source.isSet("GW_CLUSTER_TRUSTSTORE_PASSWORD") ? Placeholders.refused(
                "GW_CLUSTER_TRUSTSTORE_PASSWORD", source.string("GW_CLUSTER_TRUSTSTORE_PASSWORD", null)) : password;
        boolean any = keystore != null || truststore != null || keyFile != null;
        if (!any) {
            if (cluster.enabled() && cluster.expectsOthers() && !insecure) {
                throw new ConfigException("a node that joins a cluster needs the cluster's keys: set "
                        + "GW_CLUSTER_SECRETS_DIR to a directory made by bin/farmgate-keys (or GW_CLUSTER_KEYSTORE, "
                        + "GW_CLUSTER_TRUSTSTORE and GW_CLUSTER_KEY_FILE); GW_CLUSTER_INSECURE=true runs without "
                        + "them, for a network where every host is trusted");
            }
            return new ClusterSecurity(null, null, null, null, List.of(), insecure, eventBusPort, relayPort,
                    eventBusPublicPort, relayPublicPort, TlsEngine.JDK);
        }
        require(keystore, "GW_CLUSTER_KEYSTORE", dir);
        require(truststore, "GW_CLUSTER_TRUSTSTORE", dir);
        require(keyFile, "GW_CLUSTER_KEY_FILE", dir);
        if (password == null) {
            throw new ConfigException("GW_CLUSTER_KEYSTORE_PASSWORD is not set (nor a 'password' file in "
                    + "GW_CLUSTER_SECRETS_DIR)");
        }
        return new ClusterSecurity(keystore, password, truststore, trustPassword, keys(keyFile), insecure,
                eventBusPort, relayPort, eventBusPublicPort, relayPublicPort, TlsEngine.from(source));
    }

    private static Path path(ConfigSource source, String key, Path fallback) {
        String value = source.string(key, null);
        return value != null ? Path.of(value) : fallback;
    }

    private static void require(Path file, String key, String dir) {
        if (!Files.isReadable(file)) {
            throw new ConfigException(key + ": cannot read " + file + (dir != null ? " (from GW_CLUSTER_SECRETS_DIR "
                    + dir + "; bin/farmgate-keys --out " + dir + " --nodes <this node's id> makes it)" : ""));
        }
    }

    private static String secret(ConfigSource source, String key, Path file) {
        if (source.isSet(key)) {
            return source.string(key, null);
        }
        if (file != null && Files.isReadable(file)) {
            try {
                return Files.readString(file, StandardCharsets.UTF_8).trim();
            } catch (IOException e) {
                throw new ConfigException(key + ": cannot read " + file + ": " + e.getMessage());
            }
        }
        return null;
    }

    /** One base64 key of at least 256 bits per line; blank lines and '#' comments are skipped. */
    static List<byte[]> keys(Path file) {
        List<byte[]> keys = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String text = line.trim();
                if (text.isEmpty() || text.startsWith("#")) {
                    continue;
                }
                byte[] key;
                try {
                    key = Base64.getDecoder().decode(text);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException("GW_CLUSTER_KEY_FILE " + file + ": line " + (keys.size() + 1)
                            + " is not base64");
                }
                if (key.length < 32) {
                    throw new ConfigException("GW_CLUSTER_KEY_FILE " + file + ": a key must have at least 256 bits, "
                            + "line " + (keys.size() + 1) + " has " + key.length * 8);
                }
                keys.add(key);
            }
        } catch (IOException e) {
            throw new ConfigException("GW_CLUSTER_KEY_FILE: cannot read " + file + ": " + e.getMessage());
        }
        if (keys.isEmpty()) {
            throw new ConfigException("GW_CLUSTER_KEY_FILE " + file + " holds no key");
        }
        return keys;
    }

    /**
     * Mutual TLS against the cluster CA on one of the node-to-node channels (event bus, relay listener, relay
     * client): this node's certificate, and the CAs a peer's must chain to. A server side must also require the
     * client's certificate; a client side accepts the owner by its CA, whatever address it was reached on.
     */
    public <T extends TCPSSLOptions> T mutualTls(T options) {
        options.setSsl(true).setSslEngineOptions(tlsEngine.options())
                .setKeyCertOptions(new PfxOptions().setPath(keystore.toString()).setPassword(keystorePassword))
                .setTrustOptions(new PfxOptions().setPath(truststore.toString()).setPassword(truststorePassword));
        return options;
    }

    /**
     * Prepares the TLS engine on the calling thread (the node's starting thread, never an event loop): BoringSSL's
     * native library loads, or Netty's JDK contexts initialise. The JDK server context's class initialiser builds a
     * throwaway PKCS#12 key store, PBKDF2 on cold code: 1.2 s of CPU measured here, which otherwise falls on the
     * event loop that accepts the first connection from another node.
     */
    public void initialiseTls() {
        List<String> classes = tlsEngine == TlsEngine.OPENSSL ? List.of("io.netty.handler.ssl.OpenSsl")
                : List.of("io.netty.handler.ssl.JdkSslServerContext", "io.netty.handler.ssl.JdkSslClientContext");
        for (String name : classes) {
            try {
                Class.forName(name, true, ClusterSecurity.class.getClassLoader());
            } catch (ClassNotFoundException | LinkageError e) {
                // Another Netty: nothing to prepare, the first connection pays as it would anyway.
            }
        }
    }

    /** Names the files, never a password or a key. */
    @Override
    public String toString() {
        return secured() ? "ClusterSecurity[mutual TLS, keystore=" + keystore + ", truststore=" + truststore + ", "
                + clusterKeys.size() + " cluster key(s), eventbus=" + eventBusPort + ", relay=" + relayPort + ", "
                + tlsEngine + "]"
                : "ClusterSecurity[" + (insecure ? "INSECURE" : "none: running alone") + "]";
    }
}
