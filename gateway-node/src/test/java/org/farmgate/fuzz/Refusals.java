package org.farmgate.fuzz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.farmgate.error.GatewayException;
import org.farmgate.node.http.HttpStatuses;

/** What every refusal of outside input must be: a 4xx, with a message in the API's words. */
public final class Refusals {

    private Refusals() {
    }

    public static void assertPlain(GatewayException refused) {
        int status = HttpStatuses.of(refused.status());
        assertTrue(status >= 400 && status < 500, "status " + status + ": " + refused.getMessage());
        String message = refused.getMessage();
        assertTrue(message != null && !message.isEmpty(), "a refusal without a message");
        assertFalse(message.contains("java.") || message.contains("jackson") || message.contains("Exception"),
                message);
    }
}
