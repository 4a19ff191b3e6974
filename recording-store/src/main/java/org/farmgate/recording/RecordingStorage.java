package org.farmgate.recording;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * Where recordings are kept, as S3's multipart upload shapes it: an upload is begun, given numbered parts while its
 * session runs (every part but the last at least {@link #MIN_PART_BYTES}), each readable as soon as it is taken (a
 * running session's recording plays up to its last part), and completed into one object, which is then read by
 * ranges and deleted. Every call blocks: the node calls it from threads of its own, never an event loop.
 *
 * <p>{@link #complete} is idempotent, so that any node may finish an upload whose node is gone, and a node that
 * finished one before it could say so finishes it again harmlessly.
 */
public interface RecordingStorage extends AutoCloseable {

    /** S3's smallest part but the last. */
    long MIN_PART_BYTES = 5L * 1024 * 1024;

    /** Begins the upload of object {@code key}; returns the upload's id. */
    String begin(String key) throws IOException;

    /**
     * Uploads part {@code number} (from 1) from {@code file}; the same part again replaces it. The storage may
     * take the file itself (a directory on the same file system renames it); the caller deletes it if it is left.
     *
     * @return the part's tag, which completing names it by
     */
    String part(String key, String uploadId, int number, Path file) throws IOException;

    /**
     * Joins parts 1 to {@code tags.size()} into the object; returns its size. An upload completed before (by this
     * node or another) answers the object's size. The tags come from whoever kept them (the recordings index, so
     * that any node can finish the upload): S3-compatible servers do not all list an upload's parts alike.
     *
     * @throws java.io.FileNotFoundException when neither the upload nor the object exists, or there is no part
     */
    long complete(String key, String uploadId, java.util.List<String> tags) throws IOException;

    /**
     * Bytes {@code first} to {@code last} (inclusive) of part {@code number} of an upload not completed yet, streamed:
     * a recording played while its session still runs.
     *
     * @throws java.io.FileNotFoundException when the upload has no such part (any more: completed, or aborted)
     */
    InputStream readPart(String key, String uploadId, int number, long first, long last) throws IOException;

    /** Drops an upload and its parts; nothing is left of it. */
    void abort(String key, String uploadId) throws IOException;

    /** The object's size, or empty when there is none. */
    OptionalLong size(String key) throws IOException;

    /** Bytes {@code first} to {@code last} (inclusive) of the object, streamed; the caller closes it. */
    InputStream read(String key, long first, long last) throws IOException;

    /** Deletes the object; one that is not there is no error. */
    void delete(String key) throws IOException;

    /** Where the recordings go, for logs and the admin view: never a credential. */
    String describe();

    @Override
    void close();

    /** A key as both kinds of storage take it: letters, digits, {@code .}, {@code _}, {@code -}, and {@code /}. */
    static String checkKey(String key) {
        if (key == null || key.isEmpty() || key.length() > 512 || !key.matches("[A-Za-z0-9._/-]+")
                || key.startsWith("/") || key.contains("..") || key.contains("//")) {
            throw new IllegalArgumentException("not a recording key: '" + key + "'");
        }
        return key;
    }
}
