package org.farmgate.node.target;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.util.regex.Pattern;
import org.farmgate.error.InvalidRequestException;

/**
 * What may stand in a target's {@code hostname}: an IPv4 or IPv6 address written out, or a DNS name (RFC 1123
 * labels). Checked before anything resolves it, so that a malformed value is a 400 naming it, never a lookup: the
 * JDK sends a dotted string that is not a valid address ({@code 999.0.0.1}) to the system resolver, which blocks.
 * Addresses are parsed by Netty's {@link NetUtil}, which never asks DNS.
 */
public final class HostName {

    private static final Pattern LABEL = Pattern.compile("[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?");
    private static final Pattern DOTTED_NUMBERS = Pattern.compile("[0-9.]+");

    private HostName() {
    }

    /** The address {@code host} writes out, or null when it is a name. */
    public static InetAddress literal(String host) {
        return NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)
                ? NetUtil.createInetAddressFromIpAddressString(host) : null;
    }

    /**
     * Refuses what is neither an address nor a DNS name, naming {@code field} and the value.
     *
     * @throws InvalidRequestException with what is wrong
     */
    public static void check(String field, String host) {
        if (literal(host) != null) {
            return;
        }
        if (host.indexOf(':') >= 0) {
            throw new InvalidRequestException("field '" + field + "': '" + host + "' is neither a host name nor an IP "
                    + "address (a port goes in the field 'port')");
        }
        if (DOTTED_NUMBERS.matcher(host).matches()) {
            throw new InvalidRequestException("field '" + field + "': '" + host + "' is not a valid IPv4 address");
        }
        String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
        if (name.isEmpty() || name.length() > 253) {
            throw new InvalidRequestException("field '" + field + "' must be a host name of at most 253 characters");
        }
        for (String label : name.split("\\.", -1)) {
            if (!LABEL.matcher(label).matches()) {
                throw new InvalidRequestException("field '" + field + "': '" + host + "' is not a host name (each "
                        + "part between dots: 1 to 63 letters, digits, '-' or '_', not starting or ending with '-')");
            }
        }
    }
}
