package org.farmgate.node.target;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.farmgate.model.Protocol;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CidrTest {

    @ParameterizedTest(name = "{0} contains {1}: {2}")
    @CsvSource({
            "127.0.0.0/8, 127.0.0.1, true",
            "127.0.0.0/8, 127.255.255.254, true",
            "127.0.0.0/8, 128.0.0.1, false",
            "10.0.0.0/24, 10.0.0.255, true",
            "10.0.0.0/24, 10.0.1.0, false",
            "10.1.2.3, 10.1.2.3, true",
            "10.1.2.3, 10.1.2.4, false",
            "0.0.0.0/0, 8.8.8.8, true",
            "::1/128, ::1, true",
            "::1/128, 127.0.0.1, false",
            "fd00::/8, fd12:3456::1, true",
            "fd00::/8, fe80::1, false",
            "10.0.0.0/9, 10.127.255.255, true",
            "10.0.0.0/9, 10.128.0.0, false"})
    void containment(String cidr, String address, boolean expected) throws Exception {
        assertEquals(expected, Cidr.parse(cidr).contains(InetAddress.getByName(address)));
    }

    @ParameterizedTest
    @CsvSource({"example.com", "10.0.0.0/33", "10.0.0.0/x", "1.2.3", "::1/129", "''"})
    void rejectsWhatIsNotACidr(String text) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, () -> Cidr.parse(text));
        assertTrue(error.getMessage().contains("'" + text.trim()));
    }

    @org.junit.jupiter.api.Test
    void everyResolvedAddressMustBeInside() throws Exception {
        TargetPolicy policy = new TargetPolicy(Map.of(Protocol.SSH, List.of(Cidr.parse("10.0.0.0/8"))));
        InetAddress inside = InetAddress.getByName("10.1.1.1");
        InetAddress outside = InetAddress.getByName("192.168.1.1");
        assertNull(policy.firstOutside(Protocol.SSH, List.of(inside)));
        assertEquals(outside, policy.firstOutside(Protocol.SSH, List.of(inside, outside)));
        assertEquals(inside, policy.firstOutside(Protocol.RDP, List.of(inside)), "no list, nothing allowed");
    }
}
