package org.farmgate.node.recording;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.farmgate.recording.RecordingStorage;

/**
 * Where each byte of a running recording is now, so that it can be played while its session runs: up to what reached
 * the node's disk (the recordings' timer writes a quiet session's last bytes within two seconds).
 *
 * <p>A part is sealed on the disk's chain and uploaded on storage's; its bytes are in its spool file until it is
 * uploaded, then in storage. A part's extent never changes once sealed, so a reader that finds its file gone
 * (uploaded since it looked, or taken by the directory store's rename) reads the same bytes from storage. What is on
 * disk always ends between two instructions: the tap is given whole instructions, and a buffer goes to the disk whole.
 */
final class RecordedSoFar {

    /** Where each sealed part ends, from the recording's start. */
    private final List<Long> ends = new ArrayList<>();
    private String uploadId;
    private int uploaded;
    private long written;

    synchronized void begun(String upload) {
        uploadId = upload;
    }

    /** Bytes reached the part being written, and sealed it if {@code sealed}. */
    synchronized void appended(long bytes, boolean sealed) {
        written += bytes;
        if (sealed) {
            ends.add(written);
        }
    }

    /** The part being written was sealed at the end. */
    synchronized void sealed() {
        if (ends.isEmpty() || ends.get(ends.size() - 1) < written) {
            ends.add(written);
        }
    }

    /** Parts are uploaded in order, each after those before it. */
    synchronized void uploaded(int number) {
        uploaded = Math.max(uploaded, number);
    }

    synchronized LivePlayback.View view() {
        List<Long> sizes = new ArrayList<>(uploaded);
        for (int i = 0; i < uploaded; i++) {
            sizes.add(ends.get(i) - (i == 0 ? 0 : ends.get(i - 1)));
        }
        return new LivePlayback.View(uploadId, List.copyOf(sizes), written);
    }

    /**
     * Up to {@code max} bytes from {@code from}, within one part (fewer at a part's end; none at the end of what was
     * written). Blocking: a worker's.
     */
    byte[] read(long from, int max, IntFunction<Path> spoolFile, RecordingStorage storage, String key)
            throws IOException {
        int part;
        long start;
        long end;
        String upload;
        synchronized (this) {
            if (from < 0 || from >= written || max <= 0) {
                return new byte[0];
            }
            int index = 0;
            while (index < ends.size() && ends.get(index) <= from) {
                index++;
            }
            part = index + 1;
            start = index == 0 ? 0 : ends.get(index - 1);
            end = index < ends.size() ? ends.get(index) : written;
            upload = uploadId;
        }
        int length = (int) Math.min(max, end - from);
        long offset = from - start;
        try (FileChannel file = FileChannel.open(spoolFile.apply(part))) {
            ByteBuffer bytes = ByteBuffer.allocate(length);
            while (bytes.hasRemaining()) {
                if (file.read(bytes, offset + bytes.position()) < 0) {
                    throw new IOException("part " + part + " on disk is shorter than recorded");
                }
            }
            return bytes.array();
        } catch (NoSuchFileException uploadedSince) {
            if (upload == null) {
                throw new FileNotFoundException("part " + part + " is neither on disk nor in storage");
            }
            try (InputStream in = storage.readPart(key, upload, part, offset, offset + length - 1)) {
                return in.readNBytes(length);
            }
        }
    }
}
