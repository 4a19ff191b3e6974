package org.farmgate.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The simulation is deterministic, keeps the router's guarantee, and measures what it claims to. */
class ScaleSimulationTest {

    private static ScaleSimulation.Result run(int nodes, String design, String... more) {
        ScaleSimulation simulation = new ScaleSimulation();
        List<String> args = new ArrayList<>(List.of(more));
        if (!args.contains("--session-seconds")) {
            args.addAll(List.of("--session-seconds", "10"));
        }
        new CommandLine(simulation).parseArgs(args.toArray(String[]::new));
        return simulation.run(nodes, design);
    }

    @Test
    void theSameSeedGivesTheSameRunAndAnotherSeedAnother() {
        assertEquals(run(5, "rank-all").line(), run(5, "rank-all").line());
        assertTrue(!run(5, "rank-all").line().equals(run(5, "rank-all", "--seed", "27").line()));
    }

    @Test
    void placesWithoutOverCommitAtTheFillAskedFor() {
        for (String design : new String[] {"before", "rank-all", "two-choices"}) {
            ScaleSimulation.Result full = run(10, design, "--fill", "1.1");
            assertEquals(0, full.overCommits, design);
            assertTrue(full.refused > 0, "past capacity some creates are refused: " + full.line());
            ScaleSimulation.Result most = run(10, design, "--fill", "0.5");
            assertEquals(0, most.refused, most.line());
            assertTrue(most.meanUse > 35 && most.meanUse < 60, "about half full: " + most.line());
        }
    }

    /**
     * Every node reads every node each beat: the cost per node grows with N, less since the router takes the
     * heartbeat's read and a beat that takes nothing away goes unfenced. A create's fences reached every node before;
     * now its reservation's and place's stay with their owners, in the backups. Fences are counted over every map,
     * since a batch of them is counted under its first fence's map.
     */
    @Test
    void theControlPlaneCostPerNodeGrowsWithTheClusterLessThanBefore() {
        ScaleSimulation.Result three = run(3, "rank-all");
        ScaleSimulation.Result thirty = run(30, "rank-all");
        ScaleSimulation.Result before = run(30, "before");
        ScaleSimulation.Result beforeAtThree = run(3, "before");
        double growth = thirty.messagesPerNodeSecond / three.messagesPerNodeSecond;
        double growthBefore = before.messagesPerNodeSecond / beforeAtThree.messagesPerNodeSecond;
        assertTrue(growth > 1.1 && growth < growthBefore / 1.5, "from 3 to 30 nodes a node's messages grew "
                + growth + " times, before " + growthBefore + " times:\n" + three.line() + "\n" + thirty.line());
        assertTrue(thirty.contributors.containsKey("nodes.Summaries"), thirty.contributors.keySet().toString());
        double fencesAtThree = fences(beforeAtThree, false) / beforeAtThree.perNodeSecond;
        double fencesAtThirty = fences(before, false) / before.perNodeSecond;
        assertTrue(fencesAtThirty > 10 * fencesAtThree, "before, a create's fences reached every node: "
                + fencesAtThree + " against " + fencesAtThirty);
        assertEquals(0, fences(thirty, false), "now no fence goes to every node: " + thirty.contributors.keySet());
        assertTrue(thirty.messagesPerNodeSecond < before.messagesPerNodeSecond,
                before.line() + "\n" + thirty.line());
        assertTrue(thirty.contributors.get("nodes.Summaries").messages
                < 0.7 * before.contributors.get("nodes.Summaries").messages, "the router reads with the heartbeat");
        double noteBytes = bytesPerMessage(thirty, "user-sessions.backup") - bytesPerMessage(before,
                "user-sessions.backup");
        // a taken place's backup carries its fence, a given back one's does not, and the acknowledgements count here
        assertTrue(noteBytes > 0.1 * Sizes.FENCE_NOTE_BYTES && noteBytes <= Sizes.FENCE_NOTE_BYTES,
                "a place's backup carries its fence: " + noteBytes + " bytes more a message");
    }

    /**
     * Past 17 nodes a heartbeat with two choices reads a sample of the nodes between whole reads, sized by what its
     * router places: what a node reads per beat no longer grows with N, and placement keeps its balance and its
     * guarantee.
     */
    @Test
    void aSampledHeartbeatReadsLessAndPlacesAsWell() {
        ScaleSimulation.Result every = run(60, "two-choices", "--session-seconds", "30");
        ScaleSimulation.Result sampled = run(60, "sampled", "--session-seconds", "30");
        double everyRead = every.contributors.get("nodes.Summaries").messages;
        double sampledRead = sampled.contributors.get("nodes.Summaries").messages
                + sampled.contributors.get("nodes.SummariesOf").messages;
        assertTrue(sampledRead < 0.6 * everyRead, "the registry's reads: " + sampledRead + " messages against "
                + everyRead + "\n" + every.line() + "\n" + sampled.line());
        assertEquals(0, sampled.overCommits, sampled.line());
        assertTrue(sampled.refused <= every.refused + sampled.created / 1000, every.line() + "\n" + sampled.line());
        assertTrue(sampled.maxUse < every.maxUse + 3, "the fullest node: " + every.line() + "\n" + sampled.line());
        ScaleSimulation.Result full = run(40, "sampled", "--fill", "1.1");
        assertEquals(0, full.overCommits, full.line());
        assertTrue(full.refused > 0, full.line());
    }

    /**
     * Each router preferring its own node: more sessions opened where their create arrived, so fewer opens cross
     * the event bus, with the fullest node as full as before and nothing over-committed.
     */
    @Test
    void routersPreferringTheirOwnNodeOpenMoreSessionsWhereTheyArriveAndPlaceAsWell() {
        for (String design : new String[] {"rank-all", "sampled"}) {
            ScaleSimulation.Result plain = run(10, design, "--session-seconds", "30");
            ScaleSimulation.Result local = run(10, design + "-local", "--session-seconds", "30");
            String lines = "\n" + plain.line() + "\n" + local.line();
            assertTrue(local.local > 1.5 * plain.local, "opened where they arrived" + lines);
            assertTrue(local.contributors.get("eventbus.open").messages
                    < 0.8 * plain.contributors.get("eventbus.open").messages, "opens sent to another node" + lines);
            assertEquals(0, local.overCommits, lines);
            assertTrue(local.refused <= plain.refused + local.created / 1000, lines);
            assertTrue(local.maxUse < plain.maxUse + 1, "the fullest node" + lines);
        }
    }

    private static double bytesPerMessage(ScaleSimulation.Result result, String contributor) {
        Traffic.Count count = result.contributors.get(contributor);
        return (double) count.bytes / count.messages;
    }

    /** Every map's fences: their messages, or their bytes (each fence's, whether it opened a batch or rode in one). */
    private static double fences(ScaleSimulation.Result result, boolean bytes) {
        return result.contributors.entrySet().stream().filter(each -> each.getKey().endsWith(".fence"))
                .mapToDouble(each -> bytes ? each.getValue().bytes : each.getValue().messages).sum();
    }

    /** Gone from the registry once Hazelcast dropped the member and the coordinator saw its beat go stale. */
    @Test
    void aDeadNodesEntryGoesWithinTheMemberTimeoutAndItsStaleness() {
        ScaleSimulation.Result result = run(5, "rank-all", "--member-timeout-s", "5", "--heartbeat-ms", "1000");
        assertTrue(result.convergedSeconds > 3 && result.convergedSeconds < 5 + 4 + 2, result.line());
    }

    /**
     * An idle cluster still beats (each node publishes and reads back its entry, which another member owns, and the
     * owner backs it up), scans, and carries Hazelcast's own traffic: what the real nodes' counts showed the first
     * version of the simulation lacked.
     */
    @Test
    void anIdleClusterBeatsBacksUpAndScans() {
        ScaleSimulation.Result idle = run(5, "rank-all", "--creates-per-second", "0");
        assertEquals(0, idle.created);
        for (String contributor : new String[] {"nodes.Publish", "nodes.backup", "nodes.Summaries",
                "sessions.LiveAnywhere", "eventbus.orphan-census", "hazelcast.heartbeat (modelled)",
                "hazelcast.anti-entropy (modelled)", "eventbus.ping (modelled)"}) {
            assertTrue(idle.contributors.containsKey(contributor) && idle.contributors.get(contributor).messages > 0,
                    contributor + " in " + idle.contributors.keySet());
        }
        assertTrue(!idle.contributors.containsKey("nodes.get"), "a beat reads back nothing: its write answers with the "
                + "entry; " + idle.contributors.keySet());
        ScaleSimulation.Result busy = run(5, "rank-all", "--creates-per-second", "3");
        assertTrue(busy.created > 50, busy.line());
        assertTrue(busy.contributors.get("sessions.backup").messages > busy.created,
                "a session's record is written, backed up and acknowledged: " + busy.contributors.keySet());
        assertTrue(busy.messagesPerNodeSecond > idle.messagesPerNodeSecond, idle.line() + "\n" + busy.line());
    }

    @Test
    void theOrphanCensusIsTheCoordinatorsNotEveryNodes() {
        // before: every node asks every member for its records each round, N * 2(N - 1) messages; now the coordinator
        // asks once and tells each node, 3(N - 1)
        ScaleSimulation.Result before = run(20, "before", "--creates-per-second", "0");
        ScaleSimulation.Result now = run(20, "rank-all", "--creates-per-second", "0");
        long perNode = before.contributors.get("sessions.LiveOnNode").messages;
        long census = now.contributors.get("sessions.LiveAnywhere").messages
                + now.contributors.get("eventbus.orphan-census").messages;
        assertTrue(perNode > 8 * census, perNode + " messages against the census's " + census);
        assertTrue(!now.contributors.containsKey("sessions.LiveOnNode"), now.contributors.keySet().toString());
    }
}
