package org.farmgate.node.target;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.farmgate.model.Protocol;

/**
 * Which networks each protocol's targets may be in. A name is checked on every address it resolves to, and the
 * session then connects to the address that was checked, so a DNS answer that changes later (rebinding) cannot
 * steer guacd elsewhere.
 */
public final class TargetPolicy {

    private final Map<Protocol, List<Cidr>> allowed;

    public TargetPolicy(Map<Protocol, List<Cidr>> allowed) {
        this.allowed = Map.copyOf(allowed);
    }

    /** The first address that lies outside the protocol's allowed networks, or null when all lie inside. */
    public InetAddress firstOutside(Protocol protocol, List<InetAddress> addresses) {
        List<Cidr> networks = allowed.getOrDefault(protocol, List.of());
        for (InetAddress address : addresses) {
            if (networks.stream().noneMatch(network -> network.contains(address))) {
                return address;
            }
        }
        return null;
    }

    public List<Cidr> allowedNetworks(Protocol protocol) {
        return allowed.getOrDefault(protocol, List.of());
    }
}
