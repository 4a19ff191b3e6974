package org.farmgate.node.hostkey;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.session.Session;
import org.apache.sshd.common.session.SessionListener;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;

/**
 * An SSH server on a loopback port that lets no one in and remembers what the first client asked for: the host-key
 * algorithms of its key exchange proposal, in the client's order. Whoever connects is told nothing else.
 */
final class KexWitness implements AutoCloseable {

    private final SshServer server;
    private final CompletableFuture<List<String>> asked = new CompletableFuture<>();

    private KexWitness(SshServer server) {
        this.server = server;
    }

    /** Binds 127.0.0.1 on a free port (blocking: a worker's job). */
    static KexWitness start() throws IOException {
        SshServer server = SshServer.setUpDefaultServer();
        server.setHost("127.0.0.1");
        server.setPort(0);
        server.setKeyPairProvider(new SimpleGeneratorHostKeyProvider()); // in memory: shown to no one who stays
        KexWitness witness = new KexWitness(server);
        server.addSessionListener(new SessionListener() {
            @Override
            public void sessionNegotiationStart(Session session, Map<KexProposalOption, String> client,
                    Map<KexProposalOption, String> own) {
                witness.asked.complete(names(client.get(KexProposalOption.SERVERKEYS)));
                session.close(true);
            }
        });
        server.start();
        return witness;
    }

    private static List<String> names(String list) {
        List<String> out = new ArrayList<>();
        if (list != null) {
            for (String name : list.split(",")) {
                if (!name.isBlank()) {
                    out.add(name.trim());
                }
            }
        }
        return out;
    }

    int port() {
        return server.getPort();
    }

    /** The host-key algorithms the first client proposed, in its order. */
    CompletableFuture<List<String>> asked() {
        return asked;
    }

    @Override
    public void close() throws IOException {
        server.stop(true);
    }
}
