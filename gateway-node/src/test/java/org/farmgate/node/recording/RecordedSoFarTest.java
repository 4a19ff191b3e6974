package org.farmgate.node.recording;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.farmgate.recording.LocalDirectoryStorage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running recording read from wherever its bytes are now: the part being written, sealed parts still on disk, and
 * parts uploaded (their spool files gone), at every offset and size, one part at a time.
 */
class RecordedSoFarTest {

    @TempDir
    Path dir;

    @Test
    void everyByteIsReadFromWhereItIsNow() throws Exception {
        LocalDirectoryStorage storage = new LocalDirectoryStorage(dir.resolve("store"));
        String key = "2026-12-05/s.guac";
        PartSpool spool = new PartSpool(dir.resolve("spool"), 10);
        RecordedSoFar soFar = new RecordedSoFar();
        String upload = storage.begin(key);
        soFar.begun(upload);
        StringBuilder all = new StringBuilder();
        // parts of 10 bytes or more: 1 = "aaaaaaaaaaaa" (12), 2 = "bbbbbbbbbb" (10), 3 (being written) = "ccccc"
        for (String chunk : List.of("aaaaaa", "aaaaaa", "bbbbbbbbbb", "ccccc")) {
            int sealed = spool.append(chunk.getBytes(StandardCharsets.US_ASCII));
            soFar.appended(chunk.length(), sealed > 0);
            all.append(chunk);
        }
        storage.part(key, upload, 1, spool.file(1)); // uploaded: its spool file is taken
        soFar.uploaded(1);
        assertEquals(new LivePlayback.View(upload, List.of(12L), 27), soFar.view());

        byte[] expected = all.toString().getBytes(StandardCharsets.US_ASCII);
        for (int from = 0; from <= expected.length; from++) {
            for (int max : new int[] {1, 3, 100}) {
                byte[] read = soFar.read(from, max, spool::file, storage, key);
                int partEnd = from < 12 ? 12 : from < 22 ? 22 : 27;
                int to = Math.min(from + max, Math.max(from, partEnd));
                assertArrayEquals(Arrays.copyOfRange(expected, Math.min(from, expected.length),
                        Math.min(to, expected.length)), read, "from " + from + ", at most " + max);
            }
        }

        Files.delete(spool.file(2)); // uploaded between a view and a read: the same bytes, from storage
        storage.part(key, upload, 2, Files.write(dir.resolve("copy"), "bbbbbbbbbb".getBytes()));
        assertArrayEquals("bbb".getBytes(), soFar.read(13, 3, spool::file, storage, key));
        spool.seal();
        soFar.sealed();
        soFar.sealed();
        assertEquals(27, soFar.view().total(), "sealing twice adds no part");
        assertArrayEquals("ccccc".getBytes(), soFar.read(22, 100, spool::file, storage, key));
    }
}
