package org.farmgate.bench.hostkey;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.farmgate.bench.Stats;
import org.farmgate.node.hostkey.HostKeyProbe;
import org.farmgate.testkit.ssh.TestSshd;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What reading a target's SSH host key costs a session's creation (the first session to a target, with
 * {@code GW_SSH_HOST_KEYS=accept-new}; later ones read the cluster's map): the node's probe against Debian's
 * OpenSSH on loopback, one probe after the other, per key type the server is asked for first. Medians of the
 * latency, and the probing JVM's CPU per probe; the server's own CPU is not counted.
 */
@Command(name = "host-key-probe-benchmark", mixinStandardHelpOptions = true,
        description = "the node's SSH host-key probe against Debian's OpenSSH on loopback")
public final class HostKeyProbeBenchmark implements Callable<Integer> {

    @Option(names = "--probes", defaultValue = "200", description = "probes per key type (1..5000)")
    private int probes;

    @Option(names = "--warmup", defaultValue = "50", description = "probes before measuring (0..5000)")
    private int warmup;

    public static void main(String[] args) {
        System.exit(new CommandLine(new HostKeyProbeBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (probes < 1 || probes > 5000 || warmup < 0 || warmup > 5000) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--probes 1..5000, --warmup 0..5000");
        }
        if (!TestSshd.isInstalled()) {
            System.err.println("Debian's openssh-server is not installed (apt-get install openssh-server)");
            return 2;
        }
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean)
                ManagementFactory.getOperatingSystemMXBean();
        System.out.printf("%-22s %8s %8s %8s %14s%n", "first asked for", "p50 ms", "p95 ms", "max ms",
                "CPU ms / probe");
        try (TestSshd sshd = TestSshd.start("ed25519", "ecdsa", "rsa")) {
            for (String first : List.of("ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512")) {
                try (HostKeyProbe probe = new HostKeyProbe(List.of(first), Duration.ofSeconds(10))) {
                    InetAddress loopback = InetAddress.getLoopbackAddress();
                    for (int i = 0; i < warmup; i++) {
                        probe.probe(loopback, sshd.port()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                    }
                    double[] millis = new double[probes];
                    long cpu = os.getProcessCpuTime();
                    for (int i = 0; i < probes; i++) {
                        long started = System.nanoTime();
                        probe.probe(loopback, sshd.port()).toCompletableFuture().get(10, TimeUnit.SECONDS);
                        millis[i] = (System.nanoTime() - started) / 1e6;
                    }
                    double cpuPerProbe = (os.getProcessCpuTime() - cpu) / 1e6 / probes;
                    double max = 0;
                    for (double each : millis) {
                        max = Math.max(max, each);
                    }
                    System.out.printf(Locale.ROOT, "%-22s %8.1f %8.1f %8.1f %14.2f%n", first, Stats.median(millis),
                            Stats.percentile(millis, 95), max, cpuPerProbe);
                }
            }
        }
        return 0;
    }
}
