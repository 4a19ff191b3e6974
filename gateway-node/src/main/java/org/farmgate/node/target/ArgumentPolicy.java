package org.farmgate.node.target;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which guacd connection arguments a caller, or a stored address-book entry, may set. Arguments that would reach
 * past the target allow-list or write on the gateway host (recording and drive paths, RDP gateways, VNC repeaters
 * and reverse connections, SFTP to another host, Wake-on-LAN) are refused; the target's address, port and the
 * display are the gateway's own, set from checked values. {@code enable-drive} is a flag only: the drive's directory
 * is the node's own ({@code SessionDrives}). One policy for the API, the address book and the node
 * that opens a session for a peer.
 */
public final class ArgumentPolicy {

    private ArgumentPolicy() {
    }

    /** What a user may type at connect time for an address-book entry. */
    public static final List<String> CONNECT_OVERRIDES = List.of("username", "password", "domain");

    public static boolean isOverridable(String field) {
        return CONNECT_OVERRIDES.contains(field);
    }

    /** Top-level fields and the guacd argument each one sets. */
    public static final Map<String, String> CREDENTIAL_FIELDS = Map.of(
            "username", "username",
            "password", "password",
            "private_key", "private-key",
            "passphrase", "passphrase",
            "domain", "domain",
            "security", "security",
            "ignore_cert", "ignore-cert");

    public static final Set<String> STRUCTURAL_FIELDS = Set.of(
            "session_type", "hostname", "port", "width", "height", "dpi", "timezone");

    /** Set by the gateway itself, from checked or clamped values. */
    public static final Set<String> GATEWAY_OWNED = Set.of("hostname", "port", "width", "height", "dpi");

    private static final Set<String> REFUSED_PREFIXES = Set.of("recording-", "typescript-", "create-recording-",
            "create-typescript-", "wol-", "gateway-", "drive-", "create-drive-");

    private static final Set<String> REFUSED = Set.of("dest-host", "dest-port", "reverse-connect",
            "listen-timeout", "audio-servername", "sftp-hostname");

    /** The guacd argument a JSON field stands for: {@code private_key} is {@code private-key}. */
    public static String argumentName(String field) {
        return CREDENTIAL_FIELDS.getOrDefault(field, field.replace('_', '-'));
    }

    /** Set by the gateway itself from checked values: never from a caller or a stored entry. */
    public static boolean isGatewayOwned(String argument) {
        return GATEWAY_OWNED.contains(argument);
    }

    /** Could reach beyond the allowed networks or write on the gateway host. */
    public static boolean isRefused(String argument) {
        if (GATEWAY_OWNED.contains(argument) || REFUSED.contains(argument)) {
            return true;
        }
        return REFUSED_PREFIXES.stream().anyMatch(argument::startsWith);
    }
}
