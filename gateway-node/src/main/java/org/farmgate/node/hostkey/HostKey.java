package org.farmgate.node.hostkey;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PublicKey;
import java.util.Base64;
import java.util.Locale;
import java.util.Set;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.farmgate.error.InvalidRequestException;

/**
 * An SSH server's public host key, as OpenSSH writes it ({@code ssh-ed25519 AAAA...}), checked when read: the
 * algorithm is one guacd's libssh2 knows, and the key's own blob names the same algorithm. Its fingerprint is
 * OpenSSH's ({@code SHA256:} and the unpadded base64 of the blob's SHA-256), what {@code ssh-keygen -lf} prints.
 */
public record HostKey(String algorithm, String base64) {

    static final Set<String> ALGORITHMS = Set.of("ssh-ed25519", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
            "ecdsa-sha2-nistp521", "ssh-rsa");

    /**
     * A key given by a person: {@code algorithm base64 [comment]}, or a line of {@code known_hosts}
     * ({@code host algorithm base64 [comment]}), whose host part is dropped (the gateway names the host itself).
     *
     * @param field what the key was given as, for the error
     */
    public static HostKey parse(String field, String text) {
        if (text == null || text.isBlank()) {
            throw new InvalidRequestException(field + " is empty: give the key as ssh-keyscan or a .pub file prints "
                    + "it (\"ssh-ed25519 AAAA...\")");
        }
        String[] parts = text.trim().split("\\s+");
        int at = parts.length > 2 && !ALGORITHMS.contains(parts[0]) && ALGORITHMS.contains(parts[1]) ? 1 : 0;
        if (parts[0].startsWith("@")) {
            throw new InvalidRequestException(field + ": known_hosts markers (" + parts[0] + ") are not taken; give "
                    + "the host's own key");
        }
        if (parts.length < at + 2 || !ALGORITHMS.contains(parts[at])) {
            throw new InvalidRequestException(field + " is not an SSH public key: it must start with one of "
                    + String.join(", ", ALGORITHMS.stream().sorted().toList()));
        }
        String algorithm = parts[at];
        byte[] blob;
        try {
            blob = Base64.getDecoder().decode(parts[at + 1]);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException(field + ": the key after '" + algorithm + "' is not base64");
        }
        String named = blobAlgorithm(blob);
        if (!algorithm.equals(named)) {
            throw new InvalidRequestException(field + ": the key's data is " + (named == null ? "not an SSH key"
                    : "of another kind (" + named + ")") + ", not " + algorithm);
        }
        return new HostKey(algorithm, Base64.getEncoder().encodeToString(blob));
    }

    /** The algorithm the key blob names in its first field, or null when it is not an SSH key blob. */
    private static String blobAlgorithm(byte[] blob) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(blob))) {
            int length = in.readInt();
            if (length <= 0 || length > 64 || length > blob.length - 4) {
                return null;
            }
            byte[] name = in.readNBytes(length);
            return in.available() > 0 ? new String(name, StandardCharsets.US_ASCII) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** The key an SSH server showed, as Apache MINA SSHD hands it to a client's verifier. */
    public static HostKey of(PublicKey shown) {
        return parse("the server's key", PublicKeyEntry.toString(shown));
    }

    /** {@code algorithm base64}, as a {@code .pub} file holds it without a comment. */
    public String openSsh() {
        return algorithm + " " + base64;
    }

    public String fingerprint() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(Base64.getDecoder().decode(base64));
            return "SHA256:" + Base64.getEncoder().withoutPadding().encodeToString(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /**
     * The line guacd's {@code host-key} argument takes (libssh2 reads it as one line of {@code known_hosts}), for the
     * address guacd is given: libssh2 looks a host up as {@code [address]:port} unless the port is 22.
     */
    public String knownHostsLine(String address, int port) {
        String host = address.toLowerCase(Locale.ROOT);
        return (port == 22 ? host : "[" + host + "]:" + port) + " " + openSsh();
    }
}
