package org.farmgate.node.api;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Map;
import org.farmgate.error.GatewayException;
import org.farmgate.fuzz.Refusals;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.target.ArgumentPolicy;
import org.farmgate.node.target.HostName;

/**
 * The JSON bodies of the API under arbitrary input: a body is either a valid request, whose every value keeps the
 * rules (a plain host name, a port, no refused or over-long guacd argument), or a 4xx whose message names the
 * problem in the API's own words, never a Java class; nothing else comes out (a 500 once did).
 */
class RequestBodyFuzzTest {

    private static final SessionRequestParser SESSIONS = new SessionRequestParser();

    @FuzzTest(maxDuration = "10s")
    @DictionaryEntries({"{", "}", "[", "]", ":", ",", "null", "true", "\"\"", "\"session_type\"", "\"rdp\"",
        "\"vnc\"", "\"ssh\"", "\"hostname\"", "\"127.0.0.1\"", "\"port\"", "\"width\"", "\"height\"", "\"dpi\"",
        "\"username\"", "\"password\"", "\"private_key\"", "\"ignore_cert\"", "\"security\"", "\"timezone\"",
        "\"recording-path\"", "\"enable-sftp\"", "\"color_depth\"", "1e309", "-1", "65536", "\"name\"", "\"role\"",
        "\"admin\"", "\"groups\"", "\"expires_at\"", "\"2030-01-01T00:00:00Z\""})
    void aBodyIsAValidRequestOrANamedRefusal(String body) {
        try {
            SessionSpec spec = SESSIONS.parse(body);
            HostName.check("hostname", spec.hostname());
            assertTrue(spec.port() >= 1 && spec.port() <= 65535);
            for (Map.Entry<String, String> argument : spec.parameters().entrySet()) {
                assertFalse(ArgumentPolicy.isRefused(argument.getKey()), "accepted " + argument.getKey());
                assertTrue(spec.protocol().guacdArguments().contains(argument.getKey()));
                String value = argument.getValue();
                assertTrue(value.codePointCount(0, value.length()) <= SessionRequestParser.MAX_VALUE_LENGTH);
            }
        } catch (GatewayException refused) {
            Refusals.assertPlain(refused, body);
        }
        try {
            TokensApi.readBody(body, TokensApi.CreateToken.class);
        } catch (GatewayException refused) {
            Refusals.assertPlain(refused, body);
        }
    }
}
