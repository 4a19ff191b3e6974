package org.farmgate.node.recording;

import io.vertx.core.Future;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.farmgate.error.ConflictException;
import org.farmgate.error.UnavailableException;
import org.farmgate.node.peer.NodeMessenger;

/**
 * A running session's recording played from any node, up to what reached its node's disk. The node that records it
 * says how far it got ({@link #view}) and serves the bytes it still holds; the parts it has uploaded are read from
 * storage by whichever node plays it, so only the recording's tail (a part or two) crosses the cluster.
 *
 * <p>A playback is a snapshot: its length is fixed by the view it began with, and what is recorded after that is for
 * the next playback. A part uploaded between the view and the read is read by its node from storage, the same bytes.
 */
public final class LivePlayback {

    static final String ACTION = "recording-live";
    /** What one ask of the recording's node carries at most. */
    static final int PIECE = 1 << 20;

    /** Bytes of {@code session}'s recording from {@code from}, at most {@code max} (0: its view only). */
    public record Ask(String session, long from, int max) {
    }

    /** A running recording as it is now: its upload, the sizes of the parts in storage, and how much there is. */
    public record View(String uploadId, List<Long> uploaded, long total) {
    }

    /** The recording's view when asked, and the bytes asked for. */
    public record Piece(String uploadId, List<Long> uploaded, long total, byte[] bytes) {
    }

    private final String nodeId;
    private final Recordings recordings;
    private final NodeMessenger messenger;
    private final long timeoutMs;

    public LivePlayback(String nodeId, Recordings recordings, NodeMessenger messenger, long timeoutMs) {
        this.nodeId = nodeId;
        this.recordings = recordings;
        this.messenger = messenger;
        this.timeoutMs = timeoutMs;
    }

    /** Answers the other nodes' asks for the recordings made here. */
    public void serve() {
        messenger.serve(nodeId, ACTION, Ask.class, ask -> recordings.worker().executeBlocking(() -> local(ask), false));
    }

    /** The recording of {@code session}, made on {@code holder}, as it is now. */
    public Future<View> view(String holder, String session) {
        Ask ask = new Ask(session, 0, 0);
        Future<Piece> piece;
        if (holder.equals(nodeId)) {
            try {
                piece = Future.succeededFuture(local(ask)); // a view reads nothing: no need of a worker
            } catch (IOException | RuntimeException e) {
                piece = Future.failedFuture(e);
            }
        } else {
            piece = messenger.request(holder, ACTION, ask, Piece.class);
        }
        return piece.map(found -> new View(found.uploadId(), found.uploaded(), found.total()))
                .recover(error -> Future.failedFuture(error instanceof NodeMessenger.NodeUnreachableException
                        ? new UnavailableException("the node recording session " + session + " cannot be reached; "
                                + "the cluster completes its recording once it is gone") : error));
    }

    /**
     * Bytes {@code first} to {@code last} of what {@code view} saw, as one stream: the uploaded parts from storage,
     * the rest from {@code holder}. Its reads block: a worker's.
     */
    public InputStream open(String holder, String session, String key, View view, long first,
            long last) {
        return new InputStream() {
            private long position = first;
            private InputStream current = InputStream.nullInputStream();

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] into, int offset, int length) throws IOException {
                if (length == 0) {
                    return 0;
                }
                while (position <= last) {
                    int n = current.read(into, offset, (int) Math.min(length, last - position + 1));
                    if (n > 0) {
                        position += n;
                        return n;
                    }
                    current.close();
                    current = next(holder, session, key, view, position, last);
                }
                return -1;
            }

            @Override
            public void close() throws IOException {
                current.close();
            }
        };
    }

    /** Where the byte at {@code position} is read from: its uploaded part in storage, or its node. */
    private InputStream next(String holder, String session, String key, View view, long position,
            long last) throws IOException {
        long start = 0;
        for (int part = 1; part <= view.uploaded().size(); part++) {
            long end = start + view.uploaded().get(part - 1);
            if (position < end) {
                return recordings.storage().readPart(key, view.uploadId(), part, position - start,
                        Math.min(end, last + 1) - 1 - start);
            }
            start = end;
        }
        Ask ask = new Ask(session, position, (int) Math.min(PIECE, last - position + 1));
        byte[] bytes = holder.equals(nodeId) ? local(ask).bytes() : remote(holder, ask).bytes();
        if (bytes.length == 0) {
            throw new IOException("node " + holder + " has no byte " + position + " of session " + session
                    + "'s recording");
        }
        return new ByteArrayInputStream(bytes);
    }

    private Piece remote(String holder, Ask ask) throws IOException {
        try {
            return messenger.request(holder, ACTION, ask, Piece.class).toCompletionStage().toCompletableFuture()
                    .get(timeoutMs + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while asking node " + holder);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("node " + holder + " did not give the recording's bytes: " + (e.getCause() != null
                    ? e.getCause().getMessage() : e.getMessage()), e);
        }
    }

    /** Blocking when it reads bytes: a worker's. */
    private Piece local(Ask ask) throws IOException {
        SessionRecording recording = recordings.running(ask.session());
        if (recording == null) {
            throw new ConflictException("the recording of session " + ask.session() + " is no longer being made "
                    + "here: its session has ended, and it plays complete in a moment");
        }
        View view = recording.soFar();
        return new Piece(view.uploadId(), view.uploaded(), view.total(), ask.max() <= 0 ? new byte[0]
                : recording.readSoFar(ask.from(), Math.min(ask.max(), PIECE)));
    }
}
