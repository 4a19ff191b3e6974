package org.farmgate.node.session;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import org.farmgate.error.GatewayException;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.target.HostName;
import org.farmgate.node.target.TargetPolicy;

/**
 * Where a session may connect: its target's name resolved and every address checked against the protocol's
 * allow-list, on the node that places the session and again on the node that opens it.
 */
public final class SessionTargets {

    private final Vertx vertx;
    private final TargetPolicy targets;

    public SessionTargets(Vertx vertx, TargetPolicy targets) {
        this.vertx = vertx;
        this.targets = targets;
    }

    /**
     * What the node connects to first, and as what: the target itself, or, behind jump hosts, the first hop (an SSH
     * server; the target is reached from the last hop, in its network, and named to it as given).
     */
    private record FirstStep(String field, String host, Protocol protocol) {

        static FirstStep of(SessionSpec spec) {
            return spec.jumpHosts().isEmpty() ? new FirstStep("hostname", spec.hostname(), spec.protocol())
                    : new FirstStep("jump_hosts[0].hostname", spec.jumpHosts().get(0).hostname(), Protocol.SSH);
        }
    }

    /** Name resolution blocks, so it runs on a worker thread; a literal address is checked at once. */
    public Future<List<InetAddress>> resolveChecked(SessionSpec spec) {
        FirstStep first = FirstStep.of(spec);
        InetAddress literal;
        try {
            HostName.check(first.field(), first.host()); // an address-book entry's too
            literal = HostName.literal(first.host());
            if (literal != null) {
                return Future.succeededFuture(checked(first, List.of(literal)));
            }
        } catch (GatewayException e) {
            return Future.failedFuture(e);
        }
        return vertx.executeBlocking(() -> {
            List<InetAddress> addresses;
            try {
                addresses = Arrays.asList(InetAddress.getAllByName(first.host()));
            } catch (UnknownHostException e) {
                throw new InvalidRequestException("field '" + first.field() + "': " + first.host()
                        + " does not resolve");
            }
            return checked(first, addresses);
        }, false);
    }

    /** The address the placing node resolved, checked against this node's own list. */
    InetAddress checkedHere(SessionSpec spec, String address, String nodeId) {
        FirstStep first = FirstStep.of(spec);
        InetAddress target = HostName.literal(address);
        if (target == null) {
            throw new InvalidRequestException("unreadable target address " + address);
        }
        if (targets.firstOutside(first.protocol(), List.of(target)) != null) {
            throw new InvalidRequestException("field '" + first.field() + "': " + first.host() + " resolves to "
                    + address + ", outside the networks node " + nodeId + " allows for " + first.protocol().wireName());
        }
        return target;
    }

    private List<InetAddress> checked(FirstStep first, List<InetAddress> addresses) {
        InetAddress outside = targets.firstOutside(first.protocol(), addresses);
        if (outside != null) {
            throw new InvalidRequestException("field '" + first.field() + "': " + first.host() + " resolves to "
                    + outside.getHostAddress() + ", outside the networks allowed for " + first.protocol().wireName()
                    + " (" + targets.allowedNetworks(first.protocol()) + ")");
        }
        return addresses;
    }
}
