package org.farmgate.node.peer;

import io.vertx.core.Future;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.farmgate.model.NodeLoad;

/**
 * Opens the event-bus channel to every other node when it appears, before a user's request needs it. In a secured
 * cluster the first message between two nodes pays a TLS handshake and builds both sides' TLS contexts: measured
 * here, the first session created after the cluster formed took 2 s instead of 20 ms, and the peer's accepting event
 * loop was busy for most of it. A ping when a node registers moves that cost to the moment it joins; a node that
 * leaves and comes back is pinged again. It follows the registry as the node's heartbeat reads it.
 */
public final class PeerChannels {

    static final String PING = "ping";

    private final NodeMessenger messenger;
    private final String nodeId;
    private final Set<String> open = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    public PeerChannels(NodeMessenger messenger, String nodeId) {
        this.messenger = messenger;
        this.nodeId = nodeId;
    }

    /** Answers other nodes' pings. */
    public void serve() {
        messenger.serve(nodeId, PING, String.class, ping -> Future.succeededFuture(Boolean.TRUE));
    }

    /** The registry as a heartbeat read it: pings every node not pinged since it appeared. */
    public void seen(List<NodeLoad> nodes) {
        if (!stopped) {
            warm(nodes.stream().map(NodeLoad::nodeId).collect(Collectors.toSet()));
        }
    }

    public void stop() {
        stopped = true;
    }

    /** The peers whose channel has carried a ping since they last appeared. */
    public Set<String> open() {
        return Set.copyOf(open);
    }

    private void warm(Set<String> registered) {
        open.retainAll(registered);
        for (String peer : registered) {
            if (!peer.equals(nodeId) && !open.contains(peer)) {
                messenger.request(peer, PING, PING, Boolean.class).onSuccess(pong -> open.add(peer));
            }
        }
    }
}
