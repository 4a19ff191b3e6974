package org.farmgate.node.session;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.farmgate.model.CostModel;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.api.ApiException;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.target.TargetPolicy;
import org.farmgate.router.SessionDirectory;

/**
 * What the sessions API does: check the target, charge the cost model, open the session; read and delete through
 * the directory.
 */
public final class SessionService {

    private final Vertx vertx;
    private final TargetPolicy targets;
    private final CostModel costModel;
    private final SessionHost host;
    private final SessionDirectory directory;

    public SessionService(Vertx vertx, TargetPolicy targets, CostModel costModel, SessionHost host,
            SessionDirectory directory) {
        this.vertx = vertx;
        this.targets = targets;
        this.costModel = costModel;
        this.host = host;
        this.directory = directory;
    }

    public Future<SessionInfo> create(Identity creator, SessionSpec spec) {
        return resolve(spec.hostname()).map(addresses -> {
            InetAddress outside = targets.firstOutside(spec.protocol(), addresses);
            if (outside != null) {
                throw ApiException.badRequest("field 'hostname': " + spec.hostname() + " resolves to "
                        + outside.getHostAddress() + ", outside the networks allowed for " + spec.protocol().wireName()
                        + " (" + targets.allowedNetworks(spec.protocol()) + ")");
            }
            int cost = costModel.estimateMb(spec.protocol(), spec.display());
            return host.open(creator, spec, addresses.get(0), cost);
        });
    }

    public List<SessionInfo> list(Identity caller, boolean all) {
        if (all && !caller.isAdmin()) {
            throw new ApiException(403, "only admins may list everyone's sessions (all=true)");
        }
        return directory.list(info -> all || caller.name().equals(info.createdBy()));
    }

    /** A session the caller may see: other users' sessions do not exist for non-admins. */
    public Optional<SessionInfo> get(Identity caller, String sessionId) {
        return directory.find(sessionId).filter(info -> SessionHost.mayUse(caller, info));
    }

    public boolean delete(Identity caller, String sessionId) {
        return host.delete(sessionId, caller);
    }

    /** Name resolution blocks, so it runs on a worker thread; every address must pass the allow-list. */
    private Future<List<InetAddress>> resolve(String hostname) {
        return vertx.executeBlocking(() -> {
            try {
                return Arrays.asList(InetAddress.getAllByName(hostname));
            } catch (UnknownHostException e) {
                throw ApiException.badRequest("field 'hostname': " + hostname + " does not resolve");
            }
        }, false);
    }
}
