package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.farmgate.model.SessionInfo;
import org.farmgate.testkit.guacd.SyntheticGuacdOptions;
import org.junit.jupiter.api.Test;

/**
 * One user reserved 93 % of a cluster's budget with 48 pending 8192x8192 RDP sessions, within the session count.
 * A user's reserved memory is now limited too, and so is the display a session may ask for.
 */
class UserMemoryQuotaTest {

    private static final String BIG_RDP = "{\"session_type\":\"rdp\",\"hostname\":\"127.0.0.1\",\"width\":8192,"
            + "\"height\":8192}";

    @Test
    void pendingSessionsCannotReserveMoreThanTheUsersMemory() throws Exception {
        try (TestNode node = TestNode.start(new SyntheticGuacdOptions(), Map.of("GW_MAX_SESSIONS_PER_USER", "48",
                "GW_MAX_MEMORY_MB_PER_USER", "200", "GW_MAX_DISPLAY_WIDTH", "1920", "GW_MAX_DISPLAY_HEIGHT", "1080"))) {
            String mallory = node.createToken("mallory", "poweruser");
            SessionInfo first = node.createSession(mallory, BIG_RDP);
            assertEquals(37, first.estimatedMemoryMb(), "charged as 1920x1080, the largest display allowed");

            List<String> ids = new ArrayList<>(List.of(first.sessionId()));
            HttpResponse<String> refused = null;
            for (int i = 0; i < 48 && refused == null; i++) {
                HttpResponse<String> response = node.request("POST", "/api/sessions", mallory, BIG_RDP);
                if (response.statusCode() == 201) {
                    ids.add(TestNode.json(response).get("session_id").asText());
                } else {
                    refused = response;
                }
            }
            assertEquals(5, ids.size(), "5 x 37 MB fit in 200 MB, a sixth does not");
            assertEquals(429, refused.statusCode(), refused.body());
            String error = TestNode.json(refused).get("error").asText();
            assertTrue(error.contains("185 MB reserved") && error.contains("200 MB allowed per user"), error);

            String other = node.createToken("someone-else", "poweruser");
            node.createSession(other, BIG_RDP); // a user's limit is their own

            assertEquals(204, node.request("DELETE", "/api/sessions/" + ids.get(0), mallory, null).statusCode());
            assertEquals(201, node.request("POST", "/api/sessions", mallory, BIG_RDP).statusCode(),
                    "what a session gave back may be taken again");
        }
    }
}
