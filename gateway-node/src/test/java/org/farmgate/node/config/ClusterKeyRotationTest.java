package org.farmgate.node.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.farmgate.router.seal.Seal;
import org.farmgate.router.seal.Sealed;
import org.farmgate.testkit.process.ClusterKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster key rotates in three rolls of the nodes, with bin/farmgate-keys: at every moment of every roll, a node
 * that has rolled and one that has not open each other's records. The one-step rotation this replaced (the new key
 * first at once) did not: a node not yet rolled refused every record a rolled one signed.
 */
class ClusterKeyRotationTest {

    @TempDir
    Path dir;

    @Test
    void everyStepOfARotationKeepsRolledAndUnrolledNodesAgreed() throws Exception {
        Path keys = dir.resolve("keys");
        ClusterKeys.run(List.of(ClusterKeys.script().toString(), "--out", keys.toString(), "--nodes", "node-1"));
        List<Seal> stages = new ArrayList<>(List.of(seal(keys)));
        for (String step : List.of("--rotate-key", "--promote-key", "--retire-key")) {
            ClusterKeys.run(List.of(ClusterKeys.script().toString(), "--out", keys.toString(), step));
            stages.add(seal(keys));
        }
        assertEquals(1, lines(keys), "after the rotation, one key is left");
        for (int i = 0; i + 1 < stages.size(); i++) {
            Seal before = stages.get(i);
            Seal after = stages.get(i + 1);
            assertNotNull(after.open(before.seal("m", "k", 1, "from an unrolled node"), "m", "k"), "step " + (i + 1));
            assertNotNull(before.open(after.seal("m", "k", 1, "from a rolled node"), "m", "k"), "step " + (i + 1));
        }
        Sealed fromTheNewKeyAlone = stages.get(3).seal("m", "k", 1, "value");
        assertNull(stages.get(0).open(fromTheNewKeyAlone, "m", "k"),
                "the first and last stages share no key: a record of one is nothing to the other");
    }

    private static Seal seal(Path keys) {
        return new Seal(ClusterSecurity.keys(keys.resolve("cluster.key")));
    }

    private static int lines(Path keys) throws Exception {
        return (int) Files.readAllLines(keys.resolve("cluster.key")).stream().filter(l -> !l.isBlank()).count();
    }
}
