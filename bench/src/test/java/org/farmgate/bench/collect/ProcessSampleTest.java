package org.farmgate.bench.collect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The collector reads this very JVM from /proc, as it reads a node. */
class ProcessSampleTest {

    private static final Path PROC = Path.of("/proc");

    @Test
    void readsItsOwnProcess() {
        Assumptions.assumeTrue(Files.isDirectory(PROC.resolve("self")), "needs Linux /proc");
        ProcessSample self = ProcessSample.read(PROC, ProcessHandle.current().pid());
        assertNotNull(self);
        assertTrue(self.rssKb() > 0 && self.pssKb() > 0 && self.pssKb() <= self.rssKb(), self.toString());
        assertTrue(self.threads() > 1 && self.fds() > 2 && self.cpuTicks() > 0, self.toString());
        assertTrue(self.command().contains("java") || self.command().contains("surefire"), self.command());
    }

    @Test
    void aProcessThatIsGoneIsNull() {
        assertNull(ProcessSample.read(PROC, Long.MAX_VALUE));
    }

    @Test
    void rowsGroupMatchingProcessesAndCountCpuBetweenSamples() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(PROC.resolve("self")), "needs Linux /proc");
        String own = ProcessSample.read(PROC, ProcessHandle.current().pid()).command();
        Pattern me = Pattern.compile(Pattern.quote(own));
        HashMap<String, Long> ticks = new HashMap<>();
        List<List<String>> first = MetricsCollectorMain.rows(PROC, me, Pattern.compile("^$never"), 0, 100, ticks);
        long spin = System.nanoTime() + 300_000_000L;
        double sink = 0;
        while (System.nanoTime() < spin) {
            sink += Math.sqrt(sink + 1);
        }
        List<List<String>> second = MetricsCollectorMain.rows(PROC, me, Pattern.compile("^$never"), 1, 100, ticks);
        assertEquals(1, first.size(), first.toString());
        List<String> cells = second.get(0);
        assertEquals(MetricsCollectorMain.HEADER.length, cells.size());
        assertEquals("pid-" + ProcessHandle.current().pid(), cells.get(1));
        assertTrue(Double.parseDouble(cells.get(8)) > 0 || sink < 0, "a busy 0.3 s shows as CPU: " + second);
    }
}
