package org.farmgate.bench.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The short, seeded fault campaign of the CI suite: three hosts in network namespaces, a node killed and restarted,
 * one paused past the member timeout, one cut off and healed; every invariant must hold after each. The long one
 * is the bench command (see bench/RESULTS.md). Skips where namespaces cannot be made (not root, no iproute2).
 */
class FaultCampaignTest {

    @Test
    void aShortSeededCampaignKeepsEveryInvariant() throws Exception {
        String unavailable = NetnsLab.unavailable();
        Assumptions.assumeTrue(unavailable == null, "network namespaces are not available here: " + unavailable);
        FaultCampaign campaign = new FaultCampaign();
        new CommandLine(campaign).parseArgs("--nodes", "3", "--users", "6", "--seed", "11", "--pause-seconds", "8",
                "--partition-seconds", "8", "--faults", "kill,pause,partition");
        List<Campaign.Outcome> outcomes = campaign.run();
        for (Campaign.Outcome outcome : outcomes) {
            assertEquals(List.of(), outcome.violations(), outcome.fault());
        }
    }
}
