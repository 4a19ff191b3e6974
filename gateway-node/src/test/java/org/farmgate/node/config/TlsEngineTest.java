package org.farmgate.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.handler.ssl.OpenSsl;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** GW_CLUSTER_TLS_ENGINE: BoringSSL where the node jar carries it, the JDK's engine on request. */
class TlsEngineTest {

    @Test
    void theNodeJarCarriesBoringSslForLinuxOnX86AndArm() {
        String arch = System.getProperty("os.arch");
        assumeTrue(System.getProperty("os.name").equals("Linux") && (arch.equals("amd64") || arch.equals("aarch64")),
                "netty-tcnative is packaged for Linux x86_64 and aarch64 only");
        assertTrue(OpenSsl.isAvailable(), () -> "BoringSSL did not load: " + OpenSsl.unavailabilityCause());
        assertEquals(TlsEngine.OPENSSL, TlsEngine.from(new ConfigSource(Map.of())), "auto is BoringSSL here");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"jdk, JDK", "JDK, JDK", "' auto ', AUTO", "OpenSSL, OPENSSL"})
    void valuesAreReadWithoutRegardToCase(String value, String expected) {
        TlsEngine engine = TlsEngine.from(new ConfigSource(Map.of("GW_CLUSTER_TLS_ENGINE", value)));
        TlsEngine wanted = expected.equals("AUTO") ? (OpenSsl.isAvailable() ? TlsEngine.OPENSSL : TlsEngine.JDK)
                : TlsEngine.valueOf(expected);
        if (wanted == TlsEngine.OPENSSL) {
            assumeTrue(OpenSsl.isAvailable(), "no BoringSSL on this platform");
        }
        assertEquals(wanted, engine);
    }

    @Test
    void anUnknownEngineIsNamed() {
        ConfigException error = assertThrows(ConfigException.class,
                () -> TlsEngine.from(new ConfigSource(Map.of("GW_CLUSTER_TLS_ENGINE", "boring"))));
        assertEquals("GW_CLUSTER_TLS_ENGINE must be auto, openssl or jdk, not 'boring'", error.getMessage());
    }

    @Test
    void theChannelsGetTheChosenEngine() {
        assertInstanceOf(OpenSSLEngineOptions.class, security(TlsEngine.OPENSSL).mutualTls(new EventBusOptions())
                .getSslEngineOptions());
        assertInstanceOf(JdkSSLEngineOptions.class, security(TlsEngine.JDK).mutualTls(new EventBusOptions())
                .getSslEngineOptions());
    }

    private static ClusterSecurity security(TlsEngine engine) {
        return new ClusterSecurity(Path.of("node.p12"), "p", Path.of("trust.p12"), "p",
                List.of(new byte[32]), false, 0, 0, 0, 0, engine);
    }
}
