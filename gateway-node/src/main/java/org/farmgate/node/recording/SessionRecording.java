package org.farmgate.node.recording;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.farmgate.durable.Fact;
import org.farmgate.node.session.RecordingTap;
import org.farmgate.protocol.Instruction;
import org.farmgate.recording.RecordingStorage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session's recording, from the bytes passing its tunnels to the object in storage.
 *
 * <p>The tunnels' side ({@link #display}, {@link #input}) only copies into a small buffer under this object's lock;
 * full buffers go to two chains of tasks on the recordings' worker pool, each one task at a time and in order: the
 * disk's (append to the part on disk, seal it when it holds 5 MiB or more, S3's rule) and storage's (begin the
 * upload, upload each sealed part, and at the end the last one and complete). Storage that is slow or away holds
 * only its own chain: the disk's goes on until the spool's bound. Nothing here ever makes a tunnel wait: what the
 * disk has not written yet is bounded in memory ({@link #MEMORY_BYTES}), what storage has not taken yet is bounded
 * on disk (the spool), and past either bound the recording stops, marked incomplete with the reason, while the
 * session goes on.
 *
 * <p>A storage call that fails is tried again after 1, 2, 4 ... 30 s for as long as the session runs and
 * {@link Recordings#GIVE_UP_AFTER} after its end; the parts wait on disk meanwhile. A node that dies leaves its parts
 * uploaded so far with their tags in the index, and another node completes the upload ({@link RecordingRescue}).
 */
final class SessionRecording implements RecordingTap {

    private static final Logger LOG = LoggerFactory.getLogger(SessionRecording.class);
    /**
     * A buffer this full goes to the disk. Larger ones cost no less CPU (256 KiB: the same, within the noise, at 100
     * sessions of 320 KB/s) and hold more memory per session (+3.6 MB of RSS against +0.9).
     */
    static final int FLUSH_BYTES = 64 * 1024;
    /** Handed to the disk and not written yet: past this the disk cannot keep up, and the recording stops. */
    static final long MEMORY_BYTES = 4L << 20;
    private static final byte[] SYNC = "4.sync,".getBytes(StandardCharsets.US_ASCII);
    /** How far from a chunk's end its last sync is looked for. */
    private static final int SYNC_SCAN = 256;

    private final Recordings owner;
    private final String sessionId;
    private final String key;
    private final boolean keys;
    private final PartSpool spool;
    private final RecordedSoFar soFar = new RecordedSoFar();

    private final DisplayStart displayStart = new DisplayStart();
    private long guacdMillis = -1;
    private long guacdSeenNanos;

    // The tunnels' side, under this object's lock.
    private byte[] buffer = new byte[FLUSH_BYTES];
    private int buffered;
    private volatile long inMemory;
    /** When the disk last finished a write: how long it has been stuck, when it is. */
    private volatile long lastWrittenNanos = System.nanoTime();
    private long lastFlush = System.nanoTime();
    private String stopped;
    private boolean finishing;
    private Future<Void> writes = Future.succeededFuture();
    private Future<Void> uploads = Future.succeededFuture();
    private Promise<Void> finished;

    // The chain's side: one task at a time.
    private String uploadId;
    private final List<String> tags = new ArrayList<>();
    private volatile long onDisk;
    /** Set once, under the lock, by {@link #finish}. */
    private Instant endedAt;

    SessionRecording(Recordings owner, String sessionId, String key, boolean keys) {
        this.owner = owner;
        this.sessionId = sessionId;
        this.key = key;
        this.keys = keys;
        this.spool = new PartSpool(owner.spoolDir().resolve(sessionId), owner.partBytes());
    }

    String sessionId() {
        return sessionId;
    }

    /** Begins the upload; the first task of the chain. */
    void begin(Instant startedAt, String nodeId) {
        chainUpload(() -> {
            uploadId = owner.storage().begin(key);
            soFar.begun(uploadId);
            owner.store().record(new Fact.RecordingStarted(sessionId, key, uploadId, nodeId, startedAt, keys));
            return null;
        }, "begin the upload of");
    }

    @Override
    public void display(byte[] bytes, int start, int end) {
        noteSync(bytes, start, end); // guacd's clock, from every sync, those left out too
        displayStart.display(bytes, start, end, (kept, from, to) -> take(kept, from, to - from));
    }

    @Override
    public void input(byte[] bytes, int start, int end) {
        if (!displayStart.started()) {
            return; // a pointer or a key over nothing shown yet
        }
        Instruction event = Instruction.decodeValidated(bytes, start, end); // whole: the tunnel's scanner checked it
        List<String> args = event.args();
        String now = String.valueOf(guacdNow());
        Instruction recorded;
        // guacd 1.6's own recording: key (keysym, pressed, time) and mouse (x, y, buttons, time)
        if (event.opcode().equals("key") && keys && args.size() >= 2) {
            recorded = Instruction.of("key", args.get(0), args.get(1), now);
        } else if (event.opcode().equals("mouse") && args.size() >= 3) {
            recorded = Instruction.of("mouse", args.get(0), args.get(1), args.get(2), now);
        } else {
            return;
        }
        byte[] encoded = recorded.encode().getBytes(StandardCharsets.UTF_8);
        take(encoded, 0, encoded.length);
    }

    /**
     * Keeps guacd's clock: its {@code sync}s carry its own milliseconds (a monotonic count, not the time of day), and
     * the input's times must be on the same clock or a player (and guacenc) sees a jump of decades. A frame ends with
     * its sync, so the last one is within the chunk's last bytes; only those are looked at.
     */
    private void noteSync(byte[] bytes, int start, int end) {
        for (int i = end - SYNC.length; i >= Math.max(start, end - SYNC_SCAN); i--) {
            if (bytes[i] == SYNC[0] && java.util.Arrays.equals(bytes, i, i + SYNC.length, SYNC, 0, SYNC.length)) {
                int at = i + SYNC.length;
                int length = 0;
                while (at < end && bytes[at] >= '0' && bytes[at] <= '9' && length < 3) {
                    length = length * 10 + (bytes[at++] - '0');
                }
                if (at >= end || bytes[at] != '.' || length == 0 || length > 18 || at + 1 + length > end) {
                    return;
                }
                long value = 0;
                for (int k = at + 1; k < at + 1 + length; k++) {
                    if (bytes[k] < '0' || bytes[k] > '9') {
                        return;
                    }
                    value = value * 10 + (bytes[k] - '0');
                }
                synchronized (this) {
                    guacdMillis = value;
                    guacdSeenNanos = System.nanoTime();
                }
                return;
            }
        }
    }

    /** guacd's milliseconds now: its last sync's, plus what passed since; the node's clock before any sync. */
    private synchronized long guacdNow() {
        return guacdMillis < 0 ? System.currentTimeMillis()
                : guacdMillis + (System.nanoTime() - guacdSeenNanos) / 1_000_000;
    }

    /** Notes the join in the index, after the recording's start (a fact before it would find no row). */
    @Override
    public RecordingTap joinedBy(String who, boolean share) {
        Instant at = owner.clock().instant();
        chainUpload(() -> {
            owner.store().record(new Fact.RecordingJoined(sessionId, who, share, at));
            return null;
        }, "note a join of");
        return inputOnly();
    }

    /** guacd records the pointer always (unless told not to) and keys when asked; so does this. */
    @Override
    public boolean wantsInput() {
        return true;
    }

    /** Bytes taken and not uploaded yet (a gauge's reading: racy by a chunk, which is fine). */
    long waitingBytes() {
        return inMemory + onDisk;
    }

    private synchronized void take(byte[] bytes, int start, int length) {
        if (stopped != null || finishing) {
            return;
        }
        if (buffered + length > buffer.length) {
            flush();
            if (length > buffer.length) {
                byte[] alone = new byte[length];
                System.arraycopy(bytes, start, alone, 0, length);
                hand(alone);
                return;
            }
        }
        System.arraycopy(bytes, start, buffer, buffered, length);
        buffered += length;
        if (buffered >= FLUSH_BYTES) {
            flush();
        }
    }

    /** What the buffer holds goes to the disk, if it waited long enough (the recordings' timer calls this). */
    synchronized void flushIfOlderThan(long nanos) {
        if (buffered > 0 && System.nanoTime() - lastFlush >= nanos) {
            flush();
        }
    }

    private void flush() {
        if (buffered == 0) {
            return;
        }
        byte[] chunk = buffered == buffer.length ? buffer : java.util.Arrays.copyOf(buffer, buffered);
        buffer = new byte[FLUSH_BYTES];
        buffered = 0;
        hand(chunk);
    }

    private void hand(byte[] chunk) {
        lastFlush = System.nanoTime();
        owner.metrics().recorded(chunk.length);
        if (inMemory + chunk.length > MEMORY_BYTES) {
            stop("the node's disk did not keep up with the session (" + (MEMORY_BYTES >> 20) + " MiB waited; its "
                    + "last write ended " + (System.nanoTime() - lastWrittenNanos) / 1_000_000 + " ms before)");
            return;
        }
        inMemory += chunk.length;
        chain(() -> {
            synchronized (this) {
                inMemory -= chunk.length;
            }
            int sealed = spool.append(chunk);
            lastWrittenNanos = System.nanoTime();
            soFar.appended(chunk.length, sealed > 0);
            onDisk += chunk.length;
            if (onDisk > owner.spoolBytes()) {
                stop("storage did not keep up: " + (onDisk >> 20) + " MiB waited to be uploaded "
                        + "(GW_RECORDING_SPOOL_MB)");
            }
            if (sealed > 0) {
                upload(sealed);
            }
            return null;
        }, "write the spool of");
    }

    /** This recording as it is now, to be played while its session runs. */
    LivePlayback.View soFar() {
        return soFar.view();
    }

    /** Up to {@code max} of its bytes from {@code from} (fewer at a part's end). Blocking: a worker's. */
    byte[] readSoFar(long from, int max) throws IOException {
        return soFar.read(from, max, spool::file, owner.storage(), key);
    }

    /** Stops taking bytes; what was taken is still uploaded, and the recording ends incomplete with why. */
    synchronized void stop(String why) {
        if (stopped == null && !finishing) {
            stopped = why;
            buffered = 0;
            owner.metrics().stopped();
            LOG.warn("the recording of session {} stopped: {}", sessionId, why);
        }
    }

    /** Uploads sealed part {@code number}, after the uploads chained already (called from a write). */
    private void upload(int number) {
        chainUpload(() -> {
            java.nio.file.Path file = spool.file(number);
            long size = Files.size(file);
            String tag = owner.storage().part(key, uploadId, number, file);
            tags.add(tag);
            owner.store().record(new Fact.RecordingPart(sessionId, number, tag, size));
            soFar.uploaded(number);
            Files.deleteIfExists(file);
            onDisk -= size;
            owner.metrics().uploaded(size);
            return null;
        }, "upload part " + number + " of");
    }

    /**
     * The session stopped: the rest is uploaded and the upload completed, complete unless the recording stopped
     * early. The returned future ends when the index was told, or storage was given up on.
     */
    Future<Void> finish(Instant at) {
        Promise<Void> done;
        synchronized (this) {
            if (finished != null) {
                return finished.future();
            }
            flush();
            finishing = true;
            endedAt = at;
            finished = Promise.promise();
            done = finished;
        }
        // Sealing chains the last part's upload, then the completion, so both come after every write and upload.
        chain(() -> {
            int last = spool.seal();
            soFar.sealed();
            if (last > 0) {
                upload(last);
            }
            chainUpload(this::complete, "complete the upload of")
                    .onComplete(result -> settle(done, result.cause()));
            return null;
        }, "seal the last part of").onFailure(error -> settle(done, error));
        return done.future();
    }

    private void settle(Promise<Void> done, Throwable error) {
        if (error != null && done.tryFail(error)) {
            owner.worker().executeBlocking(() -> {
                spool.delete(); // given up: what waited on disk goes, the index says the recording is incomplete
                return null;
            }, false);
            owner.forget(this);
        } else if (error == null && done.tryComplete()) {
            owner.forget(this);
        }
    }

    private Void complete() throws IOException {
        String why;
        Instant endedAt;
        synchronized (this) {
            why = stopped;
            endedAt = this.endedAt;
        }
        if (tags.isEmpty()) {
            if (uploadId != null) {
                owner.storage().abort(key, uploadId);
            }
            owner.store().record(new Fact.RecordingEnded(sessionId, endedAt, false, why != null ? why
                    : "nothing was shown: no client attached", 0));
            spool.delete();
            return null;
        }
        long size = owner.storage().complete(key, uploadId, List.copyOf(tags));
        owner.store().record(new Fact.RecordingEnded(sessionId, endedAt, why == null, why, size));
        if (why != null) {
            owner.metrics().incomplete();
        }
        spool.delete();
        return null;
    }

    /** Runs a disk task after the disk tasks chained so far, again while it fails; its future. */
    private Future<Void> chain(Callable<Void> task, String what) {
        synchronized (this) {
            writes = writes.compose(ignored -> owner.attemptOnDisk(task, what + " session " + sessionId
                    + "'s recording", this::givenUp));
            return writes;
        }
    }

    /**
     * Runs a storage task after the storage tasks chained so far, again while storage fails; its future. Uploads
     * have a chain of their own so that storage that is slow or away never holds the disk's writes, which go on
     * until the spool's bound.
     */
    private Future<Void> chainUpload(Callable<Void> task, String what) {
        synchronized (this) {
            uploads = uploads.compose(ignored -> owner.attempt(task, what + " session " + sessionId
                    + "'s recording", this::givenUp));
            return uploads;
        }
    }

    /** Whether storage has been tried long enough: only after the session's end, past the grace. */
    private synchronized boolean givenUp() {
        return endedAt != null && owner.clock().instant().isAfter(endedAt.plus(Recordings.GIVE_UP_AFTER));
    }
}
