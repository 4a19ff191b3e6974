package org.farmgate.node.session;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import org.farmgate.error.GatewayException;
import org.farmgate.error.InvalidRequestException;
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

    /** Name resolution blocks, so it runs on a worker thread; a literal address is checked at once. */
    public Future<List<InetAddress>> resolveChecked(SessionSpec spec) {
        InetAddress literal;
        try {
            HostName.check("hostname", spec.hostname()); // an address-book entry's too
            literal = HostName.literal(spec.hostname());
            if (literal != null) {
                return Future.succeededFuture(checked(spec, List.of(literal)));
            }
        } catch (GatewayException e) {
            return Future.failedFuture(e);
        }
        return vertx.executeBlocking(() -> {
            List<InetAddress> addresses;
            try {
                addresses = Arrays.asList(InetAddress.getAllByName(spec.hostname()));
            } catch (UnknownHostException e) {
                throw new InvalidRequestException("field 'hostname': " + spec.hostname() + " does not resolve");
            }
            return checked(spec, addresses);
        }, false);
    }

    /** The address the placing node resolved, checked against this node's own list. */
    InetAddress checkedHere(SessionSpec spec, String address, String nodeId) {
        InetAddress target = HostName.literal(address);
        if (target == null) {
            throw new InvalidRequestException("unreadable target address " + address);
        }
        if (targets.firstOutside(spec.protocol(), List.of(target)) != null) {
            throw new InvalidRequestException("field 'hostname': " + spec.hostname() + " resolves to " + address
                    + ", outside the networks node " + nodeId + " allows for " + spec.protocol().wireName());
        }
        return target;
    }

    private List<InetAddress> checked(SessionSpec spec, List<InetAddress> addresses) {
        InetAddress outside = targets.firstOutside(spec.protocol(), addresses);
        if (outside != null) {
            throw new InvalidRequestException("field 'hostname': " + spec.hostname() + " resolves to "
                    + outside.getHostAddress() + ", outside the networks allowed for " + spec.protocol().wireName()
                    + " (" + targets.allowedNetworks(spec.protocol()) + ")");
        }
        return addresses;
    }
}
