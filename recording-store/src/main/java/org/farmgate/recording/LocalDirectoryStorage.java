package org.farmgate.recording;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * Recordings as files in one directory, for a node alone (no S3): an upload's parts wait under
 * {@code .uploads/<id>/}, and completing appends them to the first and renames it to {@code <key>}, so a reader
 * never sees half a recording. The same steps as S3, so the node has one way of recording whatever keeps them. A
 * part is taken from the spool by a rename where it can be, so a byte is written to disk once for the spool and once
 * more only if it is not in the first part.
 */
public final class LocalDirectoryStorage implements RecordingStorage {

    private final Path root;
    private final Path uploads;

    public LocalDirectoryStorage(Path root) throws IOException {
        this.root = Files.createDirectories(root).toRealPath();
        this.uploads = Files.createDirectories(this.root.resolve(".uploads"));
    }

    @Override
    public String begin(String key) throws IOException {
        RecordingStorage.checkKey(key);
        String id = UUID.randomUUID().toString();
        Files.createDirectories(uploads.resolve(id));
        return id;
    }

    /** Takes the spool's file by a rename where both are on one file system: the bytes are not written again. */
    @Override
    public String part(String key, String uploadId, int number, Path file) throws IOException {
        Path upload = upload(uploadId);
        if (!Files.isDirectory(upload)) {
            throw new FileNotFoundException("no upload " + uploadId);
        }
        long size = Files.size(file);
        Path target = upload.resolve(String.valueOf(number));
        try {
            Files.move(file, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException acrossFileSystems) {
            Path partial = upload.resolve(number + ".tmp");
            Files.copy(file, partial, StandardCopyOption.REPLACE_EXISTING);
            Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return number + ":" + size;
    }

    @Override
    public long complete(String key, String uploadId, List<String> tags) throws IOException {
        Path object = object(key);
        Path upload = upload(uploadId);
        if (!Files.isDirectory(upload)) {
            if (Files.exists(object)) {
                return Files.size(object);
            }
            throw new FileNotFoundException("no upload " + uploadId + " and no recording " + key);
        }
        if (tags.isEmpty()) {
            abort(key, uploadId);
            throw new FileNotFoundException("recording " + key + " has no part");
        }
        Files.createDirectories(object.getParent());
        // The others are appended to the first part, which becomes the object: one more write of all but the
        // first part (none at all for a recording of one part). The first is cut back to its own size before, so a
        // completion that broke off half way and is tried again does not append twice.
        Path first = existingPart(upload, uploadId, 1);
        try (FileChannel out = FileChannel.open(first, StandardOpenOption.WRITE)) {
            out.truncate(partSize(tags.get(0)));
            out.position(out.size());
            for (int number = 2; number <= tags.size(); number++) {
                try (FileChannel in = FileChannel.open(existingPart(upload, uploadId, number))) {
                    long size = in.size();
                    for (long done = 0; done < size; ) {
                        done += in.transferTo(done, size - done, out);
                    }
                }
            }
        }
        Files.move(first, object, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        deleteTree(upload);
        return Files.size(object);
    }

    @Override
    public InputStream readPart(String key, String uploadId, int number, long first, long last) throws IOException {
        RecordingStorage.checkKey(key);
        return readRange(upload(uploadId).resolve(String.valueOf(number)), first, last,
                "upload " + uploadId + " has no part " + number);
    }

    @Override
    public void abort(String key, String uploadId) throws IOException {
        deleteTree(upload(uploadId));
    }

    @Override
    public OptionalLong size(String key) throws IOException {
        Path object = object(key);
        return Files.isRegularFile(object) ? OptionalLong.of(Files.size(object)) : OptionalLong.empty();
    }

    @Override
    public InputStream read(String key, long first, long last) throws IOException {
        return readRange(object(key), first, last, "no recording " + key);
    }

    private static InputStream readRange(Path file, long first, long last, String missing) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(file);
        } catch (NoSuchFileException e) {
            throw new FileNotFoundException(missing);
        }
        channel.position(first);
        InputStream all = Channels.newInputStream(channel);
        return new BoundedInputStream(all, last - first + 1);
    }

    @Override
    public void delete(String key) throws IOException {
        Files.deleteIfExists(object(key));
    }

    @Override
    public String describe() {
        return "directory " + root;
    }

    @Override
    public void close() {
    }

    private static Path existingPart(Path upload, String uploadId, int number) throws FileNotFoundException {
        Path part = upload.resolve(String.valueOf(number));
        if (!Files.isRegularFile(part)) {
            throw new FileNotFoundException("upload " + uploadId + " has no part " + number);
        }
        return part;
    }

    /** A tag is {@code <number>:<size>}, as {@link #part} answers it. */
    private static long partSize(String tag) {
        int colon = tag.indexOf(':');
        try {
            return Long.parseLong(tag.substring(colon + 1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("not a part's tag: '" + tag + "'", e);
        }
    }

    private Path object(String key) {
        Path object = root.resolve(RecordingStorage.checkKey(key)).normalize();
        if (!object.startsWith(root) || object.startsWith(uploads)) {
            throw new IllegalArgumentException("not a recording key: '" + key + "'");
        }
        return object;
    }

    private Path upload(String uploadId) {
        if (uploadId == null || !uploadId.matches("[0-9a-f-]{36}")) {
            throw new IllegalArgumentException("not an upload id: '" + uploadId + "'");
        }
        return uploads.resolve(uploadId);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(dir);
    }
}
