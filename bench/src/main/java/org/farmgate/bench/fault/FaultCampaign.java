package org.farmgate.bench.fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import org.farmgate.bench.lab.NetnsLab;
import org.farmgate.testkit.process.NodeProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Issue 11's fault campaign: every fault once, one at a time, then faults at random for {@code --random-seconds};
 * after each, the time until the cluster converged and every invariant held (see {@link Campaign}), or what broke.
 * Needs root and iproute2 (network namespaces); {@code bench/scripts/netns-lab} makes and removes the hosts.
 * {@code java -cp bench/target/farmgate-bench.jar org.farmgate.bench.fault.FaultCampaign [--nodes 3] [--users 8]
 * [--random-seconds 0] [--seed 1] [--pause-seconds 12] [--partition-seconds 12]}
 */
@Command(name = "fault-campaign", mixinStandardHelpOptions = true, description = "Faults against a cluster of hosts.")
public final class FaultCampaign implements Callable<Integer> {

    @Option(names = "--nodes", defaultValue = "3", description = "hosts, one node each")
    int nodes;
    @Option(names = "--users", defaultValue = "8", description = "users, each holding one live session at a time")
    int users;
    @Option(names = "--random-seconds", defaultValue = "0", description = "random faults after the scripted ones")
    int randomSeconds;
    @Option(names = "--seed", defaultValue = "1", description = "seed of every random choice")
    long seed;
    @Option(names = "--pause-seconds", defaultValue = "12", description = "how long a paused JVM stays stopped")
    int pauseSeconds;
    @Option(names = "--partition-seconds", defaultValue = "12", description = "how long a partition lasts")
    int partitionSeconds;
    @Option(names = "--faults", split = ",", defaultValue = "kill,pause,partition,guacd,link,alone",
            description = "the scripted faults, in order")
    List<String> faults;
    @Option(names = "--node-jar", paramLabel = "PATH", description = "the node jar; default: this JVM's class path")
    String nodeJar;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FaultCampaign()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        String unavailable = NetnsLab.unavailable();
        if (unavailable != null) {
            System.err.println("the fault campaign needs network namespaces: " + unavailable);
            return 2;
        }
        List<Campaign.Outcome> outcomes = run();
        return outcomes.stream().allMatch(outcome -> outcome.violations().isEmpty()) ? 0 : 1;
    }

    /** Runs the campaign, printing each outcome as it comes; every outcome. */
    List<Campaign.Outcome> run() throws Exception {
        Random random = new Random(seed);
        System.out.printf("%nFault campaign: %d hosts, %d users, seed %d%n", nodes, users, seed);
        System.out.printf("%-48s %14s  %s%n", "fault", "converged ms", "invariants");
        long started = System.nanoTime();
        try (Campaign campaign = Campaign.start(NodeProcess.Launch.jarOrOwnClassPath(nodeJar), nodes, users,
                random)) {
            Thread.sleep(5000); // the load reaches its steady state
            for (String fault : faults) {
                report(inject(campaign, fault, 1 + random.nextInt(nodes), random));
            }
            long end = System.nanoTime() + Duration.ofSeconds(randomSeconds).toNanos();
            while (System.nanoTime() < end) {
                String fault = faults.get(random.nextInt(faults.size()));
                report(inject(campaign, fault, 1 + random.nextInt(nodes), random));
                Thread.sleep(2000 + random.nextInt(5000));
            }
            report(campaign.drain());
            List<Campaign.Outcome> outcomes = new ArrayList<>(campaign.outcomes());
            long[] times = outcomes.stream().mapToLong(Campaign.Outcome::convergedMillis).sorted().toArray();
            System.out.printf(Locale.ROOT, "%d checks in %.0f s; convergence median %d ms, max %d ms; %s; logs in %s%n",
                    times.length, (System.nanoTime() - started) / 1e9, times[times.length / 2],
                    times[times.length - 1], campaign.load().summary(), campaign.logs());
            return outcomes;
        }
    }

    private Campaign.Outcome inject(Campaign campaign, String fault, int k, Random random) throws Exception {
        return switch (fault) {
            case "kill" -> campaign.kill(k);
            case "pause" -> campaign.pause(k, Duration.ofSeconds(pauseSeconds + random.nextInt(pauseSeconds + 1)));
            case "partition" -> campaign.partition(k, Duration.ofSeconds(partitionSeconds
                    + random.nextInt(partitionSeconds + 1)));
            case "guacd" -> campaign.restartGuacd(k);
            case "alone" -> campaign.restartAlone(k);
            case "link" -> campaign.degradeLink(k, Duration.ofSeconds(partitionSeconds));
            default -> throw new CommandLine.ParameterException(new CommandLine(this), "unknown fault '" + fault
                    + "': kill, pause, partition, guacd, link or alone");
        };
    }

    private static void report(Campaign.Outcome outcome) {
        System.out.printf("%-48s %14d  %s%n", outcome.fault(), outcome.convergedMillis(),
                outcome.violations().isEmpty() ? "hold" : "BROKEN: " + outcome.violations());
    }
}
