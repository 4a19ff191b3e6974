package org.farmgate.node.signin;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** What an ID token must show, one row per way it can fail (and the one that passes). */
class IdTokenRulesTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
    private static final long T = NOW.getEpochSecond();

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            valid                   | {"iss":"https://id","aud":"farmgate","exp":T+300,"iat":T-5,"nonce":"n1","sub":"s"}          | -
            aud as a list           | {"iss":"https://id","aud":["x","farmgate"],"exp":T+300,"iat":T-5,"nonce":"n1","sub":"s"}    | -
            not verified            | -                                                                                             | did not verify
            other issuer            | {"iss":"https://evil","aud":"farmgate","exp":T+300,"iat":T-5,"nonce":"n1","sub":"s"}        | another issuer
            other client            | {"iss":"https://id","aud":"other","exp":T+300,"iat":T-5,"nonce":"n1","sub":"s"}             | another client
            no audience             | {"iss":"https://id","exp":T+300,"iat":T-5,"nonce":"n1","sub":"s"}                           | another client
            expired                 | {"iss":"https://id","aud":"farmgate","exp":T-61,"iat":T-400,"nonce":"n1","sub":"s"}         | expired
            expired within skew     | {"iss":"https://id","aud":"farmgate","exp":T-30,"iat":T-400,"nonce":"n1","sub":"s"}         | -
            no expiry               | {"iss":"https://id","aud":"farmgate","iat":T-5,"nonce":"n1","sub":"s"}                      | expired
            issued in the future    | {"iss":"https://id","aud":"farmgate","exp":T+900,"iat":T+600,"nonce":"n1","sub":"s"}        | in the future
            another sign-in's nonce | {"iss":"https://id","aud":"farmgate","exp":T+300,"iat":T-5,"nonce":"n2","sub":"s"}          | nonce
            no nonce                | {"iss":"https://id","aud":"farmgate","exp":T+300,"iat":T-5,"sub":"s"}                       | nonce
            no subject              | {"iss":"https://id","aud":"farmgate","exp":T+300,"iat":T-5,"nonce":"n1"}                    | no subject
            """)
    void anIdTokenPassesOnlyWhenEveryRuleHolds(String name, String claims, String refusal) {
        JsonObject token = claims == null ? null : new JsonObject(times(claims));
        String why = IdTokenRules.refusal(token, "https://id", "farmgate", "n1", NOW);
        if (refusal == null) {
            assertEquals(null, why);
        } else {
            assertEquals(true, why != null && why.contains(refusal), () -> "refusal '" + why + "' for " + name);
        }
    }

    /** T+300 and T-5 in the rows: seconds around now. */
    private static String times(String claims) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("T([+-])(\\d+)").matcher(claims);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            long offset = Long.parseLong(m.group(2));
            m.appendReplacement(out, String.valueOf(m.group(1).equals("+") ? T + offset : T - offset));
        }
        m.appendTail(out);
        return out.toString();
    }
}
