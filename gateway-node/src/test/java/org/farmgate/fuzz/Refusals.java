package org.farmgate.fuzz;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.farmgate.error.GatewayException;
import org.farmgate.node.http.HttpStatuses;

/** What every refusal of outside input must be: a 4xx, with a message in the API's words. */
public final class Refusals {

    private Refusals() {
    }

    /** Words of the implementation a message may show only where the input itself had them. */
    private static final List<String> INTERNALS = List.of("java.", "jackson", "Exception", "com.fasterxml");

    /** @param input what the client sent: a message may quote it */
    public static void assertPlain(GatewayException refused, String input) {
        int status = HttpStatuses.of(refused.status());
        assertTrue(status >= 400 && status < 500, "status " + status + ": " + refused.getMessage());
        String message = refused.getMessage();
        assertTrue(message != null && !message.isEmpty(), "a refusal without a message");
        for (String internal : INTERNALS) {
            assertFalse(message.contains(internal) && (input == null || !input.contains(internal)), message);
        }
    }
}
