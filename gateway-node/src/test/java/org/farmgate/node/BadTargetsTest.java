package org.farmgate.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Host names that once answered 500 (an UnknownHostException, after a lookup on the event loop for the dotted ones)
 * are a 400 that names what is wrong, and nothing is left behind.
 */
class BadTargetsTest {

    @Test
    void malformedHostNamesAreABadRequest() throws Exception {
        try (TestNode node = TestNode.start()) {
            for (String host : List.of("127.0.0.1:22", "1.2.3.4:22", "127.0.0.256", "999.0.0.1", "a..b")) {
                HttpResponse<String> answer = node.request("POST", "/api/sessions", TestNode.ADMIN,
                        "{\"hostname\":\"" + host + "\",\"username\":\"u\",\"password\":\"p\"}");
                assertEquals(400, answer.statusCode(), host + ": " + answer.body());
                assertTrue(answer.body().contains("hostname") && answer.body().contains(host), answer.body());
            }
            node.assertNothingLeaks();
            assertEquals(201, node.request("POST", "/api/sessions", TestNode.ADMIN,
                    "{\"hostname\":\"127.0.0.1\",\"username\":\"u\",\"password\":\"p\"}").statusCode());
        }
    }
}
