package org.farmgate.node.tunnel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerRequest;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OriginPolicyTest {

    @ParameterizedTest(name = "Origin {0}, Host {1}, allowed {2}: {3}")
    @CsvSource(nullValues = "-", value = {
            "-, gw.example:8080, -, true",
            "http://gw.example:8080, gw.example:8080, -, true",
            "https://gw.example, gw.example, -, true",
            "https://gw.example, gw.example:443, -, true",
            "HTTPS://GW.EXAMPLE, gw.example, -, true",
            "https://evil.example, gw.example, -, false",
            "https://gw.example.evil, gw.example, -, false",
            "http://gw.example:9090, gw.example:8080, -, false",
            "https://portal.example, gw.example, https://portal.example, true",
            "https://portal.example/, gw.example, https://portal.example, true",
            "https://other.example, gw.example, *, true",
            "null, gw.example, -, false"})
    void decides(String origin, String host, String allowed, boolean expected) {
        OriginPolicy policy = new OriginPolicy(allowed == null ? List.of() : List.of(allowed));
        assertEquals(expected, policy.allows(request(origin, host)));
    }

    private static HttpServerRequest request(String origin, String host) {
        MultiMap headers = MultiMap.caseInsensitiveMultiMap();
        if (origin != null) {
            headers.add("Origin", origin);
        }
        headers.add("Host", host);
        return (HttpServerRequest) Proxy.newProxyInstance(OriginPolicyTest.class.getClassLoader(),
                new Class<?>[] {HttpServerRequest.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getHeader") && args[0] instanceof String name) {
                        return headers.get(name);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
