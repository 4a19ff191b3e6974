package org.farmgate.node.guacd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProtocolVersionTest {

    @ParameterizedTest(name = "guacd offers {0}, we answer {1}")
    @CsvSource({
            "VERSION_1_5_0, VERSION_1_5_0",
            "VERSION_1_3_0, VERSION_1_3_0",
            "VERSION_1_1_0, VERSION_1_1_0",
            "VERSION_1_7_0, VERSION_1_5_0",
            "hostname, VERSION_1_0_0"})
    void answersTheOfferedVersionOrOurNewest(String offered, ProtocolVersion expected) {
        assertEquals(expected, ProtocolVersion.answerTo(offered));
    }

    @Test
    void instructionsFollowTheVersion() {
        assertFalse(ProtocolVersion.VERSION_1_0_0.sendsTimezone());
        assertTrue(ProtocolVersion.VERSION_1_1_0.sendsTimezone());
        assertFalse(ProtocolVersion.VERSION_1_3_0.sendsName());
        assertTrue(ProtocolVersion.VERSION_1_5_0.sendsName());
        assertTrue(ProtocolVersion.announcesVersion(List.of("VERSION_1_5_0", "hostname")));
        assertFalse(ProtocolVersion.announcesVersion(List.of("hostname", "port")));
    }
}
