package org.farmgate.node.hostkey;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.farmgate.error.InvalidRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Host keys as people give them (a .pub line, a known_hosts line) and as guacd's libssh2 takes them. */
class HostKeyTest {

    /** An SSH key blob: the algorithm's name and a body, as RFC 4253 frames them. */
    static String blob(String algorithm, int bodyBytes) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (DataOutputStream data = new DataOutputStream(out)) {
            byte[] name = algorithm.getBytes(StandardCharsets.US_ASCII);
            data.writeInt(name.length);
            data.write(name);
            data.writeInt(bodyBytes);
            for (int i = 0; i < bodyBytes; i++) {
                data.write(i);
            }
        }
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            a .pub line                  | ssh-ed25519 {ED} farmgate@host
            without a comment            | ssh-ed25519 {ED}
            spaces around                | '   ssh-ed25519   {ED}   '
            a known_hosts line           | web1.example.com,10.0.0.5 ssh-ed25519 {ED}
            a known_hosts line, a port   | [10.0.0.5]:2222 ssh-ed25519 {ED} comment
            """)
    void theKeysPeopleGiveAreRead(String what, String text) throws IOException {
        String ed = blob("ssh-ed25519", 32);
        HostKey key = HostKey.parse("host_key", text.replace("{ED}", ed));
        assertEquals("ssh-ed25519 " + ed, key.openSsh(), what);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            empty                         | ''                             | is empty
            an unknown algorithm          | ssh-dss {ED}                   | is not an SSH public key
            a key without its data        | ssh-ed25519                    | is not an SSH public key
            data that is not base64       | ssh-ed25519 %%%%               | is not base64
            the data of another algorithm | ecdsa-sha2-nistp256 {ED}       | of another kind (ssh-ed25519)
            data that is no key           | ssh-ed25519 aGVsbG8gd29ybGQ=   | not an SSH key
            a known_hosts marker          | @revoked host ssh-ed25519 {ED} | markers
            """)
    void anythingElseIsRefusedNamingWhy(String what, String text, String reason) throws IOException {
        InvalidRequestException refused = assertThrows(InvalidRequestException.class,
                () -> HostKey.parse("field 'host_key'", text.replace("{ED}", blob("ssh-ed25519", 32))), what);
        assertTrue(refused.getMessage().startsWith("field 'host_key'"), refused.getMessage());
        assertTrue(refused.getMessage().contains(reason), what + ": " + refused.getMessage());
    }

    @ParameterizedTest(name = "{0}:{1}")
    @CsvSource(delimiter = '|', textBlock = """
            10.0.0.5 | 22   | 10.0.0.5
            10.0.0.5 | 2222 | [10.0.0.5]:2222
            ::1      | 22   | ::1
            ::1      | 2200 | [::1]:2200
            """)
    void guacdIsGivenAKnownHostsLineForTheAddressItConnectsTo(String address, int port, String host)
            throws IOException {
        String ed = blob("ssh-ed25519", 32);
        assertEquals(host + " ssh-ed25519 " + ed, HostKey.parse("k", "ssh-ed25519 " + ed).knownHostsLine(address,
                port));
    }

    @Test
    void theFingerprintIsOpenSshs() throws IOException {
        // SHA-256 of the blob, base64 without padding: 43 characters after "SHA256:"
        String fingerprint = HostKey.parse("k", "ssh-ed25519 " + blob("ssh-ed25519", 32)).fingerprint();
        assertTrue(fingerprint.matches("SHA256:[A-Za-z0-9+/]{43}"), fingerprint);
    }
}
