package org.farmgate.bench.sim;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.apache.commons.csv.CSVPrinter;
import org.farmgate.bench.Choices;
import org.farmgate.bench.Csv;
import org.farmgate.bench.Stats;
import org.farmgate.error.Failures;
import org.farmgate.model.CostModel;
import org.farmgate.model.DisplaySize;
import org.farmgate.model.NodeLimits;
import org.farmgate.model.NodeLoad;
import org.farmgate.model.Protocol;
import org.farmgate.model.SessionInfo;
import org.farmgate.model.SessionStatus;
import org.farmgate.router.NoCapacityException;
import org.farmgate.router.SessionQuota;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A discrete-event simulation of a cluster's control plane that runs the real {@code SessionRouter},
 * {@code PlacementPolicy}, {@code NodeRegistry}, {@code SessionQuota} and {@code SessionDirectory} on simulated
 * shared maps (per-call latency, Hazelcast's partitions, fences, every message counted), on a virtual clock, with
 * seeded randomness: the same seed gives the same run.
 *
 * <p>Sessions arrive at random nodes (a load balancer) at the rate that keeps the cluster {@code --fill} full on
 * average (Little's law with exponential durations); after a warm-up of three mean durations, two are measured:
 * placement quality (memory reserved per node against its budget), over-commits (a node whose sessions cost more
 * than its budget, counted when one opens), refusals, messages and bytes per node per second by
 * contributor, create latency. Then one node dies and the run measures how long routers go on placing on it, and
 * when its entry is gone. Hazelcast's own traffic (member heartbeats, anti-entropy) and the event bus's pings are
 * modelled from their settings, not run; backups are sent as Hazelcast sends them.
 */
@Command(name = "scale-simulation", mixinStandardHelpOptions = true,
        description = "The control plane from 3 to 1000 nodes, today's placement against power of d choices.")
public final class ScaleSimulation implements Callable<Integer> {

    /**
     * What a run's nodes do: {@code before} is the code as it was before issue 26 (commit c86516c: every node ranked,
     * the router reading the registry for itself, every heartbeat fenced, tickets in a cluster map, each node reading
     * its own records for the orphan scan, every reservation's and place's fence told to every node); the others are
     * today's code with {@code GW_PLACEMENT_CHOICES} at 0 and 2, {@code two-choices} with every heartbeat reading
     * every summary as the code did before {@code HeartbeatRead}, {@code sampled} as it does now; these four place
     * as the code did before a router preferred its own node, {@code rank-all-local} and {@code sampled-local} as it
     * does now.
     */
    record Design(String name, int choices, boolean offerView, boolean fenceEveryBeat, boolean ticketsInMap,
            boolean censusPerNode, boolean fencesAtOwner, boolean sampledRead, boolean preferLocal) {
    }

    private static final List<Design> ALL_DESIGNS = List.of(
            new Design("before", 0, false, true, true, true, false, false, false),
            new Design("rank-all", 0, true, false, false, false, true, false, false),
            new Design("two-choices", 2, true, false, false, false, true, false, false),
            new Design("sampled", 2, true, false, false, false, true, true, false),
            new Design("rank-all-local", 0, true, false, false, false, true, false, true),
            new Design("sampled-local", 2, true, false, false, false, true, true, true));
    private static final List<String> DESIGNS = ALL_DESIGNS.stream().map(Design::name).toList();

    @Spec
    private CommandSpec spec;
    @Option(names = "--nodes", split = ",", defaultValue = "3,10,100", description = "cluster sizes (2..2000)")
    private List<Integer> sizes;
    @Option(names = "--designs", split = ",", defaultValue = "before,rank-all,two-choices,sampled",
            description = "before (the code before issue 26), rank-all (every node ranked), two-choices (best of 2 "
                    + "drawn at random, every heartbeat reading every summary), sampled (two-choices, heartbeats "
                    + "reading a sample), rank-all-local and sampled-local (rank-all and sampled, each router "
                    + "preferring its own node, as the nodes do now)")
    private List<String> designs;
    @Option(names = "--fill", defaultValue = "0.9", description = "the cluster's average fill (0.1..1.2)")
    private double fill;
    @Option(names = "--session-seconds", defaultValue = "60", description = "mean session length (10..3600)")
    private int sessionSeconds;
    @Option(names = "--creates-per-second", defaultValue = "-1",
            description = "a fixed arrival rate for the whole cluster instead of --fill's (0: an idle cluster)")
    private double createsPerSecond;
    @Option(names = "--host-mb", defaultValue = "4096", description = "each node's host memory (1024..262144)")
    private long hostMb;
    @Option(names = "--latency-us", defaultValue = "250", description = "one-way latency between nodes (10..100000)")
    private long latencyMicros;
    @Option(names = "--heartbeat-ms", defaultValue = "1500", description = "GW_HEARTBEAT_MS (100..60000)")
    private long heartbeatMillis;
    @Option(names = "--member-timeout-s", defaultValue = "5", description = "GW_CLUSTER_MEMBER_TIMEOUT_SECS")
    private int memberTimeoutSeconds;
    @Option(names = "--seed", defaultValue = "26", description = "the random seed")
    private long seed;
    @Option(names = "--csv", description = "a row per size, design and contributor")
    private Path csv;

    /** The mix of sessions: protocol, display, share of arrivals. */
    private record Kind(Protocol protocol, DisplaySize display, double share) {
    }

    private static final List<Kind> MIX = List.of(
            new Kind(Protocol.RDP, DisplaySize.DEFAULT, 0.55),
            new Kind(Protocol.RDP, new DisplaySize(1920, 1080, 96), 0.2),
            new Kind(Protocol.SSH, DisplaySize.DEFAULT, 0.15),
            new Kind(Protocol.VNC, DisplaySize.DEFAULT, 0.1));

    public static void main(String[] args) {
        System.exit(new CommandLine(new ScaleSimulation()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Choices.require(spec, "--designs", designs, DESIGNS);
        check("--fill", fill, 0.1, 1.2);
        check("--session-seconds", sessionSeconds, 10, 3600);
        if (createsPerSecond != -1) {
            check("--creates-per-second", createsPerSecond, 0, 100_000);
        }
        check("--host-mb", hostMb, 1024, 262_144);
        check("--latency-us", latencyMicros, 10, 100_000);
        check("--heartbeat-ms", heartbeatMillis, 100, 60_000);
        check("--member-timeout-s", memberTimeoutSeconds, 2, 600);
        for (int size : sizes) {
            check("--nodes", size, 2, 2000);
        }
        System.out.printf("%-6s %-14s %8s %6s %6s %6s %6s %6s %5s %9s %9s %8s %8s %7s %7s  %s%n", "nodes",
                "design", "created", "503%", "local%", "mean%", "max%", "p99dev", "over", "msg/n/s", "KB/n/s",
                "busiest", "createP95", "deadPl", "conv_s", "top contributors (messages/node/s)");
        CSVPrinter out = csv == null ? null : Csv.write(csv, "nodes", "design", "contributor", "messages_per_node_s",
                "bytes_per_node_s");
        List<String> failures = new ArrayList<>();
        for (int size : sizes) {
            for (String design : designs) {
                Result result = run(size, design);
                System.out.println(result.line());
                if (result.overCommits > 0) {
                    failures.add(size + " nodes, " + design + ": " + result.overCommits + " over-commits");
                }
                if (out != null) {
                    for (Map.Entry<String, Traffic.Count> each : result.contributors.entrySet()) {
                        out.printRecord(size, design, each.getKey(),
                                String.format("%.2f", each.getValue().messages / result.perNodeSecond),
                                String.format("%.0f", each.getValue().bytes / result.perNodeSecond));
                    }
                    out.printRecord(size, design, "total", String.format("%.2f", result.messagesPerNodeSecond),
                            String.format("%.0f", result.bytesPerNodeSecond));
                    out.flush();
                }
            }
        }
        if (out != null) {
            out.close();
        }
        failures.forEach(failure -> System.out.println("FAILED: " + failure));
        return failures.isEmpty() ? 0 : 1;
    }

    private void check(String option, double value, double low, double high) {
        if (value < low || value > high) {
            throw new CommandLine.ParameterException(spec.commandLine(), option + " must be within " + low + ".."
                    + high + ", not " + value);
        }
    }

    /** What one run measured. */
    static final class Result {
        int nodes;
        String design;
        long created;
        long refused;
        /** Creates placed on the node that received them: opened without an event-bus hop. */
        long local;
        double meanUse;
        double maxUse;
        double p99Deviation;
        long overCommits;
        double messagesPerNodeSecond;
        double bytesPerNodeSecond;
        double busiestPerSecond;
        double createP95Millis;
        long placedOnDead;
        double convergedSeconds;
        double perNodeSecond;
        Map<String, Traffic.Count> contributors;

        /** The largest contributors, messages per node per second (each counted where it is sent and received). */
        String topContributors(int count) {
            StringBuilder top = new StringBuilder();
            contributors.entrySet().stream()
                    .sorted(Comparator.comparingLong((Map.Entry<String, Traffic.Count> e) -> e.getValue().messages)
                            .reversed())
                    .limit(count)
                    .forEach(e -> top.append(String.format("%s %.1f  ", e.getKey(),
                            e.getValue().messages / perNodeSecond)));
            return top.toString().trim();
        }

        String line() {
            return String.format(
                    "%-6d %-14s %8d %6.2f %6.1f %6.1f %6.1f %6.1f %5d %9.1f %9.1f %8.0f %8.1f %7d %7.1f  %s",
                    nodes, design, created, 100.0 * refused / Math.max(1, created + refused),
                    100.0 * local / Math.max(1, created), meanUse, maxUse,
                    p99Deviation, overCommits, messagesPerNodeSecond, bytesPerNodeSecond / 1024, busiestPerSecond,
                    createP95Millis, placedOnDead, convergedSeconds, topContributors(4));
        }
    }

    Result run(int size, String name) {
        Design design = ALL_DESIGNS.stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
        SplittableRandom random = new SplittableRandom(seed * 1_000_003 + size);
        long margin = 256;
        NodeLimits limits = new NodeLimits(hostMb - margin, margin, 10_000, 0);
        Duration heartbeat = Duration.ofMillis(heartbeatMillis);
        SimCluster cluster = new SimCluster(size, heartbeat, latencyMicros, hostMb, limits, design, random);
        VirtualTime time = cluster.time;
        Result result = new Result();
        result.nodes = size;
        result.design = name;
        long[] overCommits = new long[1];
        long heartbeatMicros = heartbeat.toNanos() / 1000;
        for (SimNode node : cluster.members) {
            node.startBeating(random.nextLong(heartbeatMicros));
        }

        double meanCharge = 0; // a session's own cost: what each protocol takes once is not per session
        CostModel model = cluster.members[0].load().costModel();
        for (Kind kind : MIX) {
            meanCharge += kind.share() * model.estimateMb(kind.protocol(), kind.display());
        }
        double capacity = size * (double) limits.budgetMb() / meanCharge;
        double meanLifeMicros = sessionSeconds * 1e6;
        double arrivalsPerMicro = createsPerSecond >= 0 ? createsPerSecond / 1e6 : fill * capacity / meanLifeMicros;
        long warmup = (long) (3 * meanLifeMicros);
        long measured = (long) (2 * meanLifeMicros);
        List<Long> createMicros = new ArrayList<>();
        long[] counts = new long[3]; // created, refused, created where they arrived (counted in the measured window)
        boolean[] measuring = new boolean[1];
        long[] sessionNumber = new long[1];

        // arrivals: one event schedules the next, so the queue holds one arrival at a time
        Runnable[] arrive = new Runnable[1];
        arrive[0] = () -> {
            long gap = (long) (-Math.log(1 - random.nextDouble()) / arrivalsPerMicro);
            time.after(Math.max(1, gap), arrive[0]);
            createSession(cluster, random, sessionNumber[0]++, meanLifeMicros, measuring[0], counts, createMicros,
                    overCommits);
        };
        if (arrivalsPerMicro > 0) {
            time.after(1, arrive[0]);
        }
        time.after(warmup, () -> {
            measuring[0] = true;
            cluster.traffic.start();
        });
        List<Double> means = new ArrayList<>();
        List<Double> maxes = new ArrayList<>();
        List<Double> deviations = new ArrayList<>();
        Runnable[] sample = new Runnable[1];
        sample[0] = () -> {
            sampleUse(cluster, means, maxes, deviations);
            if (time.micros() < warmup + measured) {
                time.after(5_000_000, sample[0]);
            }
        };
        time.after(warmup + 1, sample[0]);
        time.runUntil(warmup + measured);
        measuring[0] = false;
        double seconds = measured / 1e6;
        result.perNodeSecond = seconds * size;
        result.contributors = cluster.traffic.byContributor();
        result.messagesPerNodeSecond = cluster.traffic.totalMessages() / result.perNodeSecond / 2;
        result.bytesPerNodeSecond = cluster.traffic.totalBytes() / result.perNodeSecond / 2;
        addModelled(size, seconds, result);
        result.busiestPerSecond = cluster.traffic.mostMessages() / seconds;
        result.created = counts[0];
        result.refused = counts[1];
        result.local = counts[2];
        result.meanUse = mean(means);
        result.maxUse = mean(maxes);
        result.p99Deviation = Stats.percentile(deviations.stream().mapToDouble(Double::doubleValue).toArray(), 99);
        result.createP95Millis = Stats.percentile(createMicros.stream().mapToLong(Long::longValue).toArray(), 95)
                / 1000.0;

        // one node dies; how long routers go on placing there, and when its entry goes
        SimNode dead = cluster.members[size - 1];
        long killedAt = time.micros();
        long[] lastPlacedOnDead = {-1};
        long[] departedAt = {-1};
        long[] deadReserved = {-1};
        cluster.nodes.afterWrite((key, value) -> {
            if (key.equals(dead.nodeId) && value != null) {
                if (value.departed()) {
                    departedAt[0] = departedAt[0] < 0 ? time.micros() : departedAt[0];
                } else if (deadReserved[0] >= 0 && value.reservations().sessionCount() > deadReserved[0]) {
                    lastPlacedOnDead[0] = time.micros();
                    result.placedOnDead++;
                }
                deadReserved[0] = value.reservations().sessionCount();
            }
        });
        deadReserved[0] = cluster.nodes.snapshot().get(dead.nodeId).reservations().sessionCount();
        cluster.network.kill(dead.index);
        time.after(memberTimeoutSeconds * 1_000_000L, () -> cluster.network.remove(dead.index));
        time.runUntil(killedAt + 30_000_000L);
        result.overCommits = overCommits[0];
        result.convergedSeconds = ((departedAt[0] < 0 ? time.micros() : departedAt[0]) - killedAt) / 1e6;
        return result;
    }

    /** What the simulation does not run but counts: Hazelcast's own traffic and the event bus's pings. */
    private record Modelled(String name, double messagesPerSecond, int bytes) {
    }

    /**
     * Every member heartbeats every other once a second (our setting of Hazelcast's); every partition's owner sends
     * its backups' replicas their versions every 30 s (Hazelcast's anti-entropy,
     * {@code hazelcast.partition.backup.sync.interval}; a partition has up to six backup replicas, one on each other
     * member, seen in the real nodes' operation counts); every event bus connection (one each way between two nodes
     * once any message crossed) pings every 20 s and is answered (Vert.x's {@code clusterPingInterval}).
     */
    private static List<Modelled> modelled(int size) {
        return List.of(
                new Modelled("hazelcast.heartbeat (modelled)", (double) size * (size - 1), Sizes.HEARTBEAT_BYTES),
                new Modelled("hazelcast.anti-entropy (modelled)",
                        SimNetwork.PARTITIONS * Math.min(size - 1, 6) / 30.0, Sizes.ANTI_ENTROPY_BYTES),
                new Modelled("eventbus.ping (modelled)", 2.0 * size * (size - 1) / 20, Sizes.EVENT_BUS_PING_BYTES));
    }

    private static void addModelled(int size, double seconds, Result result) {
        java.util.TreeMap<String, Traffic.Count> all = new java.util.TreeMap<>(result.contributors);
        for (Modelled each : modelled(size)) {
            Traffic.Count count = new Traffic.Count();
            count.messages = (long) (each.messagesPerSecond() * seconds);
            count.bytes = count.messages * each.bytes();
            all.put(each.name(), count);
            result.messagesPerNodeSecond += count.messages / result.perNodeSecond;
            result.bytesPerNodeSecond += count.bytes / result.perNodeSecond;
        }
        result.contributors = all;
    }

    private void createSession(SimCluster cluster, SplittableRandom random, long number, double meanLifeMicros,
            boolean measuring, long[] counts, List<Long> createMicros, long[] overCommits) {
        SimNode router = cluster.members[random.nextInt(cluster.members.length)];
        if (!router.alive()) {
            return; // the load balancer's health check took it out
        }
        Kind kind = pick(random);
        String sessionId = new java.util.UUID(seed, number).toString();
        String user = "user-" + random.nextInt(Math.max(10, cluster.members.length * 20));
        long lifeMicros = (long) (-Math.log(1 - random.nextDouble()) * meanLifeMicros);
        long started = cluster.time.micros();
        int charge = router.load().costModel().estimateMb(kind.protocol(), kind.display()); // as SessionCreation
        router.quota.tryAcquire(user, sessionId, charge, SessionQuota.Limits.NONE)
                .thenCompose(grant -> router.router.place(sessionId, kind.protocol(), kind.display(),
                        java.util.Set.of()))
                .whenComplete((placement, error) -> {
                    if (error != null) {
                        if (Failures.cause(error) instanceof NoCapacityException) {
                            if (measuring) {
                                counts[1]++;
                            }
                            router.quota.release(user, sessionId);
                            return;
                        }
                        throw new IllegalStateException("a create failed otherwise than by capacity", error);
                    }
                    if (measuring) {
                        counts[0]++;
                        createMicros.add(cluster.time.micros() - started);
                    }
                    SimNode host = cluster.members[Integer.parseInt(placement.nodeId().substring("node-".length()))];
                    if (measuring && host == router) {
                        counts[2]++;
                    }
                    SessionInfo pending = new SessionInfo(sessionId, kind.protocol(), SessionStatus.PENDING,
                            Instant.EPOCH, "target", 3389, "someone", user, user, 0, host.nodeId,
                            placement.chargedMb(), null, null).withRevision(1);
                    if (host != router) { // the placing node asks the host to open it, on the event bus
                        cluster.network.send(router.index, host.index, "eventbus.open", cluster.sizes.of(pending));
                        cluster.network.send(host.index, router.index, "eventbus.open", cluster.sizes.of(pending));
                    }
                    host.opened(pending);
                    // the browser asks the node that took its create for a ticket, its WebSocket brings it to the
                    // host and guacd's connection opens
                    cluster.time.after(50_000, () -> {
                        if (!host.alive() || !router.alive()) {
                            return;
                        }
                        host.ticketRedeemed(router, sessionId).thenAccept(spent -> {
                            if (!spent) {
                                return;
                            }
                            SessionInfo active = new SessionInfo(sessionId, kind.protocol(), SessionStatus.ACTIVE,
                                    Instant.EPOCH, "target", 3389, "someone", user, user, 1, host.nodeId,
                                    placement.chargedMb(), null, null).withRevision(2);
                            if (!host.alive()) {
                                return;
                            }
                            if (host.open(active, placement.chargedMb())) {
                                overCommits[0]++;
                            }
                            cluster.time.after(lifeMicros, () -> {
                                if (host.alive()) {
                                    host.end(active.ended(SessionStatus.COMPLETED, cluster.time.instant(), "closed")
                                            .withRevision(3));
                                }
                            });
                        });
                    });
                });
    }

    private static Kind pick(SplittableRandom random) {
        double at = random.nextDouble();
        for (Kind kind : MIX) {
            at -= kind.share();
            if (at < 0) {
                return kind;
            }
        }
        return MIX.get(0);
    }

    /** Memory reserved on each live node against its budget, from the registry as its owners hold it. */
    private static void sampleUse(SimCluster cluster, List<Double> means, List<Double> maxes,
            List<Double> deviations) {
        List<Double> uses = new ArrayList<>();
        for (NodeLoad node : cluster.nodes.snapshot().values()) {
            if (!node.departed()) {
                uses.add(100.0 * node.reservations().reservedMb() / node.limits().budgetMb());
            }
        }
        double mean = mean(uses);
        means.add(mean);
        maxes.add(uses.stream().mapToDouble(Double::doubleValue).max().orElse(0));
        uses.forEach(use -> deviations.add(Math.abs(use - mean)));
    }

    private static double mean(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).average().orElse(0);
    }
}
