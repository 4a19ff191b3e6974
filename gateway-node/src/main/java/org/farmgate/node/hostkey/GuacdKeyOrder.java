package org.farmgate.node.hostkey;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.Protocol;
import org.farmgate.node.async.Stages;
import org.farmgate.node.guacd.GuacdClient;
import org.farmgate.node.guacd.HandshakeRequest;

/**
 * The order guacd's libssh2 asks servers for their host keys in, learnt by being the server it connects to once: an
 * SSH session of guacd's to a {@link KexWitness} on loopback, closed as soon as guacd has sent its key exchange
 * proposal. A server shows the first key of that list it holds, so the node's probe, asking in the same order, reads
 * the key guacd will be shown; libssh2 releases differ (1.10 asks for ECDSA first, 1.11 for Ed25519).
 *
 * <p>guacd must reach the node's loopback (a neighbour or a sidecar); where it cannot, this fails and the order
 * configured stays.
 */
public final class GuacdKeyOrder {

    private GuacdKeyOrder() {
    }

    /** guacd's order, kept to the algorithms the probe can ask for; fails when guacd did not connect in time. */
    public static Future<List<String>> learn(Vertx vertx, GuacdClient guacd, Duration timeout) {
        return vertx.executeBlocking(KexWitness::start, false).compose(witness -> {
            HandshakeRequest request = new HandshakeRequest(Protocol.SSH, Map.of("hostname", "127.0.0.1", "port",
                    String.valueOf(witness.port()), "username", "farmgate-key-order"), DisplaySize.DEFAULT,
                    List.of(), List.of(), List.of("image/png"), "UTC", "farmgate");
            return guacd.connect(request)
                    .compose(connection -> Stages.await(vertx, witness.asked()
                            .orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS))
                            .eventually(() -> connection.socket().close()))
                    .map(GuacdKeyOrder::known)
                    .eventually(() -> vertx.executeBlocking(() -> {
                        witness.close();
                        return null;
                    }, false));
        });
    }

    /** The names the probe knows, in the order given; the certificate kinds and others left out. */
    static List<String> known(List<String> asked) {
        List<String> out = asked.stream().filter(HostKeyProbe.LIBSSH2_ORDER::contains).distinct().toList();
        if (out.isEmpty()) {
            throw new IllegalStateException("guacd asked for no host-key algorithm the node can read: " + asked);
        }
        return out;
    }
}
