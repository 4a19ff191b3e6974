package org.farmgate.node.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * guacd's memory as the node counts it, on a /proc laid out as Linux does: the main process, the processes of
 * sessions (a socket to the main process and one to their console), and the process guacd forks for the health
 * probe's {@code select}, which has only the socket to the main process and no session.
 */
class ProcHostProbeTest {

    @TempDir
    Path proc;

    @Test
    void guacdCountsItsMainProcessAndItsSessionsButNotAProcessThatReachedNoConsole() throws IOException {
        process(100, 1, "guacd", 15 * 1024, "socket:[1]", "anon_inode:[eventfd]"); // the listener
        process(200, 100, "guacd", 20 * 1024, "socket:[2]", "socket:[3]", "pipe:[4]"); // a session
        process(201, 100, "guacd", 22 * 1024, "socket:[5]", "socket:[6]"); // another
        process(202, 100, "guacd", 5 * 1024, "socket:[7]"); // the probe's select, waiting for a connect
        process(300, 1, "sshd", 9 * 1024, "socket:[8]", "socket:[9]");
        assertArrayEquals(new long[] {57, 4, 2}, new ProcHostProbe(proc, proc, "guacd").guacdPss());
    }

    @Test
    void aSecondGuacdIsCountedWholeAndAnUnreadableOneNotAtAll() throws IOException {
        process(100, 1, "guacd", 15 * 1024, "socket:[1]");
        process(400, 1, "guacd", 16 * 1024, "socket:[2]"); // another guacd, not a child of the first
        Path other = process(500, 100, "guacd", -1, "socket:[3]", "socket:[4]"); // another user's: no smaps_rollup
        Files.delete(other.resolve("smaps_rollup"));
        assertArrayEquals(new long[] {31, 3, 1}, new ProcHostProbe(proc, proc, "guacd").guacdPss());
    }

    private Path process(long pid, long parent, String name, long pssKb, String... fds) throws IOException {
        Path dir = Files.createDirectories(proc.resolve(String.valueOf(pid)));
        Files.writeString(dir.resolve("comm"), name + "\n");
        Files.writeString(dir.resolve("stat"), pid + " (" + name + ") S " + parent + " " + pid + " " + pid
                + " 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0\n");
        Files.writeString(dir.resolve("smaps_rollup"), "00400000-7ffd rw-p 00000000 00:00 0 [rollup]\nRss: "
                + (pssKb * 2) + " kB\nPss:              " + pssKb + " kB\n");
        Path fd = Files.createDirectories(dir.resolve("fd"));
        for (int i = 0; i < fds.length; i++) {
            Files.createSymbolicLink(fd.resolve(String.valueOf(i + 3)), Path.of(fds[i]));
        }
        return dir;
    }
}
