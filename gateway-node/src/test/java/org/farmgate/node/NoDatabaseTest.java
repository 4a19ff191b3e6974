package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.Map;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A node told to keep nothing (GW_DB_URL=none) says so wherever something kept is asked for, and works otherwise. */
class NoDatabaseTest {

    @ParameterizedTest
    @ValueSource(strings = {"/api/users", "/api/admin/group-mappings", "/api/reports/sessions", "/api/audit"})
    void whatIsKeptInTheDatabaseIsUnavailableWithTheReason(String path) throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_DB_URL", "none"))) {
            HttpResponse<String> response = node.request("GET", path, TestNode.ADMIN, null);
            assertEquals(503, response.statusCode(), response::body);
            assertTrue(response.body().contains("GW_DB_URL"), response::body);
            assertEquals(201, node.request("POST", "/api/tokens", TestNode.ADMIN,
                    "{\"name\":\"still-works\",\"role\":\"viewer\"}").statusCode());
        }
    }
}
