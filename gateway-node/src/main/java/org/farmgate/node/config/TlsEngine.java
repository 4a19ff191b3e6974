package org.farmgate.node.config;

import io.netty.handler.ssl.OpenSsl;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.SSLEngineOptions;
import java.util.Locale;

/**
 * Which TLS implementation the node-to-node channels use ({@code GW_CLUSTER_TLS_ENGINE}). BoringSSL, through
 * netty-tcnative, is the default where its native library loads: the JDK's engine measured here cost ~64 % of a
 * relayed session's throughput at saturation and most of the added CPU of a secured cluster. {@code jdk} keeps the
 * JDK's engine (a platform the node jar carries no native library for falls back to it by itself).
 */
public enum TlsEngine {
    OPENSSL, JDK;

    static TlsEngine from(ConfigSource source) {
        String wanted = source.string("GW_CLUSTER_TLS_ENGINE", "auto").trim().toLowerCase(Locale.ROOT);
        return switch (wanted) {
            case "auto" -> OpenSsl.isAvailable() ? OPENSSL : JDK;
            case "jdk" -> JDK;
            case "openssl" -> {
                if (!OpenSsl.isAvailable()) {
                    throw new ConfigException("GW_CLUSTER_TLS_ENGINE=openssl, but BoringSSL does not load on this "
                            + "platform (" + OpenSsl.unavailabilityCause() + "); set auto or jdk");
                }
                yield OPENSSL;
            }
            default -> throw new ConfigException("GW_CLUSTER_TLS_ENGINE must be auto, openssl or jdk, not '"
                    + wanted + "'");
        };
    }

    SSLEngineOptions options() {
        return this == OPENSSL ? new OpenSSLEngineOptions() : new JdkSSLEngineOptions();
    }
}
