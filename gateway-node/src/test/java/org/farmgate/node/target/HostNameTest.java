package org.farmgate.node.target;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.farmgate.error.InvalidRequestException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HostNameTest {

    @ParameterizedTest
    @CsvSource({"127.0.0.1, 127.0.0.1", "10.0.0.255, 10.0.0.255", "::1, 0:0:0:0:0:0:0:1",
            "fe80::1, fe80:0:0:0:0:0:0:1"})
    void addressesAreReadWithoutAsking(String host, String address) {
        assertEquals(address, HostName.literal(host).getHostAddress());
        assertDoesNotThrow(() -> HostName.check("hostname", host));
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "db-1.lab.example", "x", "a_b.example.", "1host.example"})
    void namesPass(String host) {
        assertNull(HostName.literal(host));
        assertDoesNotThrow(() -> HostName.check("hostname", host));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "127.0.0.1:22 | a port goes in the field 'port'",
        "1.2.3.4:22 | a port goes in the field 'port'",
        "127.0.0.256 | not a valid IPv4 address",
        "999.0.0.1 | not a valid IPv4 address",
        "1.2.3 | not a valid IPv4 address",
        "-lead.example | is not a host name",
        "a..b | is not a host name",
        "sp ace | is not a host name",
        "semi;colon | is not a host name"})
    void theRestIsABadRequestNamingTheValue(String host, String why) {
        InvalidRequestException refused = assertThrows(InvalidRequestException.class,
                () -> HostName.check("hostname", host));
        assertTrue(refused.getMessage().contains(why) && refused.getMessage().contains("hostname"),
                refused.getMessage());
    }
}
