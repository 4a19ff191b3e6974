package org.farmgate.node.jump;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.sshd.client.session.ClientSession;

/**
 * One session's way to its target through its jump hosts: an SSH session per hop, each but the first reached
 * through the forward of the one before, and the last hop's forward to the target, on a loopback port that guacd
 * connects to. Closed with the session, last hop first.
 */
public final class JumpChain implements AutoCloseable {

    private final List<ClientSession> hops;
    private final InetSocketAddress local;

    JumpChain(List<ClientSession> hops, InetSocketAddress local) {
        this.hops = List.copyOf(hops);
        this.local = local;
    }

    /** Where guacd connects: the last hop's forward to the target. */
    public InetSocketAddress local() {
        return local;
    }

    @Override
    public void close() {
        List<ClientSession> reversed = new ArrayList<>(hops);
        Collections.reverse(reversed);
        for (ClientSession hop : reversed) {
            hop.close(true);
        }
    }
}
