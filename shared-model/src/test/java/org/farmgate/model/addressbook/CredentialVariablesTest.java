package org.farmgate.model.addressbook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.error.MissingCredentialsException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class CredentialVariablesTest {

    @ParameterizedTest(name = "''{0}'' names ''{1}''")
    @CsvSource(nullValues = "null", value = {
        "$corp_password, corp_password",
        "$A-b_9, A-b_9",
        "$, null", // a lone dollar is a value (a password may be "$")
        "$a b, null",
        "a$b, null",
        "$$x, null",
        "$x$, null",
        "plain, null",
        "'', null"})
    void aReferenceIsADollarAndAName(String value, String name) {
        assertEquals(name, CredentialVariables.variableOf(value));
    }

    @Test
    void anEntryIsResolvedWithThePersonsValuesOnlyInTheFourFields() {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("hostname", "$corp_host"); // not a credential field: left as written
        entry.put("username", "$corp_username");
        entry.put("password", "$corp_password");
        entry.put("domain", "CORP");
        entry.put("private_key", "$corp_password"); // named twice, asked once
        assertEquals(List.of("corp_username", "corp_password"), CredentialVariables.referenced(entry));

        Map<String, Object> resolved = CredentialVariables.resolve(entry, Map.of("corp_username", "ann",
                "corp_password", "pw", "corp_host", "evil"));
        assertEquals("$corp_host", resolved.get("hostname"));
        assertEquals("ann", resolved.get("username"));
        assertEquals("pw", resolved.get("password"));
        assertEquals("pw", resolved.get("private_key"));
        assertEquals("CORP", resolved.get("domain"));
        assertEquals("$corp_username", entry.get("username"), "the stored entry is left alone");
    }

    @Test
    void whatIsMissingOrEmptyIsNamedAndNoValueIsInTheMessage() {
        Map<String, Object> entry = Map.of("username", "$u_username", "password", "$u_password");
        MissingCredentialsException missing = assertThrows(MissingCredentialsException.class,
                () -> CredentialVariables.resolve(entry, Map.of("u_username", "secret-name", "u_password", "")));
        assertEquals(List.of("u_password"), missing.missing());
        assertEquals(List.of("u_password"), missing.details().get("missing_variables"));
        assertFalse(missing.getMessage().contains("secret-name"), missing.getMessage());
    }

    @ParameterizedTest
    @CsvSource({"corp_username, alice, alice", "corp_domain, CORP, CORP", "corp_user, al, al",
        "corp_password, pw, ••••••••", "corp_key, k, ••••••••", "corp_pin, 1234, ••••••••",
        "corp_secret, s, ••••••••", "corp_password, '', ''"})
    void onlyANameOrADomainIsShownBack(String name, String value, String display) {
        Map<String, Object> shown = CredentialVariables.masked(name, value, "local");
        assertEquals(display, shown.get("display"));
        assertEquals(!value.isEmpty(), shown.get("set"));
    }

    @ParameterizedTest
    @CsvSource(nullValues = "null", value = {"Corp, false", "corp/x, false", "'', false", "null, false",
        "corp_username, true", "a-b_9, true", "../x, false"})
    void storedNamesAreRustguacs(String name, boolean ok) {
        if (ok) {
            assertEquals(name, CredentialVariables.checkName(name));
        } else {
            assertTrue(assertThrows(InvalidRequestException.class, () -> CredentialVariables.checkName(name))
                    .getMessage().contains("invalid variable name"));
        }
    }

    @Test
    void thePublicViewNamesTheVariablesButHoldsNoValue() {
        EntryInfo info = EntryInfo.of("box", Map.of("type", "ssh", "hostname", "h", "username", "$c_username",
                "password", "$c_password"));
        assertEquals(List.of("c_username", "c_password"), info.fields().get("credential_variables"));
        assertNull(info.fields().get("password"));
        assertNull(EntryInfo.of("plain", Map.of("type", "ssh", "hostname", "h")).fields()
                .get("credential_variables"));
    }
}
