package org.farmgate.bench.hostkey;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.farmgate.bench.Stats;
import org.farmgate.durable.DurableStore;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.JumpHost;
import org.farmgate.model.Protocol;
import org.farmgate.model.Role;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.hostkey.HostKeyPolicy;
import org.farmgate.node.hostkey.HostKeyProbe;
import org.farmgate.node.hostkey.HostKeyTrust;
import org.farmgate.node.jump.JumpHosts;
import org.farmgate.router.store.LocalSharedMap;
import org.farmgate.testkit.ssh.TestSshd;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What each SSH jump host adds to a session's connect: the time until guacd's first byte from the target, the
 * target's SSH banner, directly and through 1, 2 and 3 hops (Debian's OpenSSH as every bastion and as the target,
 * separate processes on loopback, key logins), the chain opened by the node's own code ({@link JumpHosts}: connect,
 * key check, login and forward per hop) and closed after each try. Medians; this JVM's CPU per connect (the node's
 * part only: the bastions are other processes).
 */
@Command(name = "jump-chain-benchmark", mixinStandardHelpOptions = true,
        description = "the connect latency each SSH jump host adds, against Debian's OpenSSH on loopback")
public final class JumpChainBenchmark implements Callable<Integer> {

    @Option(names = "--connects", defaultValue = "100", description = "connects per chain length (1..2000)")
    private int connects;

    @Option(names = "--warmup", defaultValue = "20", description = "connects before measuring (0..2000)")
    private int warmup;

    @Option(names = "--max-hops", defaultValue = "3", description = "the longest chain (0..5)")
    private int maxHops;

    public static void main(String[] args) {
        System.exit(new CommandLine(new JumpChainBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (connects < 1 || connects > 2000 || warmup < 0 || warmup > 2000 || maxHops < 0
                || maxHops > JumpHosts.MAX_HOPS) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--connects 1..2000, --warmup 0..2000, "
                    + "--max-hops 0.." + JumpHosts.MAX_HOPS);
        }
        if (!TestSshd.isInstalled()) {
            System.err.println("Debian's openssh-server is not installed (apt-get install openssh-server)");
            return 2;
        }
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                ManagementFactory.getOperatingSystemMXBean();
        Identity bench = new Identity("token:bench", "bench", Role.ADMIN, Set.of());
        List<TestSshd> bastions = new ArrayList<>();
        try (TestSshd target = TestSshd.start("ed25519");
                DurableStore none = DurableStore.open(null);
                HostKeyProbe probe = new HostKeyProbe(HostKeyProbe.LIBSSH2_ORDER, Duration.ofSeconds(10))) {
            HostKeyTrust trust = new HostKeyTrust(null, HostKeyPolicy.ACCEPT_NEW, probe, new LocalSharedMap<>(),
                    none, (creator, address, key) -> { }, Clock.systemUTC());
            for (int i = 0; i < maxHops; i++) {
                bastions.add(TestSshd.start("ed25519"));
            }
            try (JumpHosts jumps = new JumpHosts(trust, Duration.ofSeconds(10))) {
                System.out.printf("%-6s %8s %8s %8s %16s%n", "hops", "p50 ms", "p95 ms", "+p50 ms", "CPU ms / connect");
                double direct = 0;
                for (int hops = 0; hops <= maxHops; hops++) {
                    SessionSpec spec = spec(target.port(), bastions.subList(0, hops));
                    for (int i = 0; i < warmup; i++) {
                        connect(jumps, spec, bench, "w" + i);
                    }
                    double[] millis = new double[connects];
                    long cpu = os.getProcessCpuTime();
                    for (int i = 0; i < connects; i++) {
                        long started = System.nanoTime();
                        connect(jumps, spec, bench, "c" + i);
                        millis[i] = (System.nanoTime() - started) / 1e6;
                    }
                    double cpuPerConnect = (os.getProcessCpuTime() - cpu) / 1e6 / connects;
                    double median = Stats.median(millis);
                    if (hops == 0) {
                        direct = median;
                    }
                    System.out.printf(Locale.ROOT, "%-6d %8.1f %8.1f %8.1f %16.2f%n", hops, median,
                            Stats.percentile(millis, 95), median - direct, cpuPerConnect);
                }
            }
        } finally {
            for (TestSshd bastion : bastions) {
                bastion.close();
            }
        }
        return 0;
    }

    private static SessionSpec spec(int targetPort, List<TestSshd> hops) throws java.io.IOException {
        List<JumpHost> chain = new ArrayList<>();
        for (TestSshd bastion : hops) {
            chain.add(new JumpHost("127.0.0.1", bastion.port(), bastion.user(), null, bastion.clientKey(), null));
        }
        return new SessionSpec(Protocol.SSH, "127.0.0.1", targetPort, DisplaySize.DEFAULT, null, Map.of(), chain);
    }

    /** Opens the chain (none: the target itself) and reads the target's banner through it, as guacd would. */
    private static void connect(JumpHosts jumps, SessionSpec spec, Identity who, String id) throws Exception {
        InetSocketAddress at = spec.jumpHosts().isEmpty()
                ? new InetSocketAddress(InetAddress.getLoopbackAddress(), spec.port())
                : jumps.open(id, spec, InetAddress.getLoopbackAddress(), who, null).local();
        try (Socket socket = new Socket(at.getAddress(), at.getPort())) {
            socket.setSoTimeout(10_000);
            InputStream in = socket.getInputStream();
            if (in.read() < 0) {
                throw new IllegalStateException("no banner through " + spec.jumpHosts().size() + " hops");
            }
        } finally {
            jumps.closeChain(id);
        }
    }
}
