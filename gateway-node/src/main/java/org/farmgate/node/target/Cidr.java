package org.farmgate.node.target;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/** An IPv4 or IPv6 network in CIDR notation; a bare address is a network of one. */
public final class Cidr {

    private final byte[] network;
    private final int prefixLength;
    private final String text;

    private Cidr(byte[] network, int prefixLength, String text) {
        this.network = network;
        this.prefixLength = prefixLength;
        this.text = text;
    }

    /** @throws IllegalArgumentException with the reason when {@code text} is not a CIDR */
    public static Cidr parse(String text) {
        String trimmed = text.trim();
        int slash = trimmed.indexOf('/');
        String address = slash < 0 ? trimmed : trimmed.substring(0, slash);
        byte[] bytes = literalAddress(address, trimmed);
        int prefix = bytes.length * 8;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(trimmed.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + trimmed + "' has no numeric prefix length");
            }
            if (prefix < 0 || prefix > bytes.length * 8) {
                throw new IllegalArgumentException("'" + trimmed + "' has a prefix length outside 0-" + bytes.length * 8);
            }
        }
        return new Cidr(mask(bytes, prefix), prefix, trimmed);
    }

    public boolean contains(InetAddress address) {
        byte[] candidate = address.getAddress();
        return candidate.length == network.length && Arrays.equals(mask(candidate, prefixLength), network);
    }

    @Override
    public String toString() {
        return text;
    }

    private static byte[] literalAddress(String address, String whole) {
        // Only literals: InetAddress.getByName on a name would do a blocking DNS lookup.
        boolean literal = address.indexOf(':') >= 0 || address.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        if (!literal) {
            throw new IllegalArgumentException("'" + whole + "' is not an IP address or CIDR network");
        }
        try {
            return InetAddress.getByName(address).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + whole + "' is not an IP address or CIDR network");
        }
    }

    private static byte[] mask(byte[] bytes, int prefix) {
        byte[] out = bytes.clone();
        for (int i = 0; i < out.length; i++) {
            int bits = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] &= (byte) (0xFF << (8 - bits));
        }
        return out;
    }
}
