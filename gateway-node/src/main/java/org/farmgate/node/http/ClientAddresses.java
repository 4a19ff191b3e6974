package org.farmgate.node.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.farmgate.node.target.Cidr;

/**
 * The address a request came from, for history and the audit log: the peer's, unless the peer is a balancer the node
 * is told to trust ({@code GW_TRUSTED_PROXIES}); then the {@code X-Forwarded-For} hop nearest to the balancers that
 * is not one of them. Hops further left were written by whoever sent the request and prove nothing, and a header
 * from an untrusted peer is ignored whole: otherwise anyone could choose the address their actions are logged under.
 */
public final class ClientAddresses {

    private final List<Cidr> trusted;

    public ClientAddresses(List<Cidr> trusted) {
        this.trusted = List.copyOf(trusted);
    }

    public String of(HttpServerRequest request) {
        SocketAddress peer = request.remoteAddress();
        String remote = peer == null ? null : peer.hostAddress();
        if (remote == null || trusted.isEmpty() || !isTrusted(remote)) {
            return remote;
        }
        String forwarded = request.headers().getAll("X-Forwarded-For").stream().reduce((a, b) -> a + "," + b)
                .orElse(null);
        if (forwarded == null) {
            return remote;
        }
        String[] hops = forwarded.split(",");
        for (int i = hops.length - 1; i >= 0; i--) {
            String hop = hops[i].trim();
            InetAddress address = literal(hop);
            if (address == null) {
                return remote; // not an address: the chain cannot be followed further than the balancer
            }
            if (!contains(address)) {
                return address.getHostAddress();
            }
        }
        return remote;
    }

    private boolean isTrusted(String remote) {
        InetAddress address = literal(remote);
        return address != null && contains(address);
    }

    private boolean contains(InetAddress address) {
        return trusted.stream().anyMatch(cidr -> cidr.contains(address));
    }

    /** An IP literal, never a name to look up. */
    private static InetAddress literal(String text) {
        boolean v4 = text.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = text.length() <= 45 && text.indexOf(':') >= 0 && text.matches("[0-9A-Fa-f:.]+");
        if (!v4 && !v6) {
            return null;
        }
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            return null;
        }
    }
}
