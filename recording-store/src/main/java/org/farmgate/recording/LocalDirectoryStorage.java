package org.farmgate.recording;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
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
 * {@code .uploads/<id>/}, and completing joins them into {@code <key>} by a rename, so a reader never sees half a
 * recording. The same steps as S3, so the node has one way of recording whatever keeps them.
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

    @Override
    public String part(String key, String uploadId, int number, Path file) throws IOException {
        Path upload = upload(uploadId);
        if (!Files.isDirectory(upload)) {
            throw new FileNotFoundException("no upload " + uploadId);
        }
        Path partial = upload.resolve(number + ".tmp");
        Files.copy(file, partial, StandardCopyOption.REPLACE_EXISTING);
        Files.move(partial, upload.resolve(String.valueOf(number)), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        return number + ":" + Files.size(file);
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
        Path joined = upload.resolve("joined.tmp");
        try (FileChannel out = FileChannel.open(joined, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (int number = 1; number <= tags.size(); number++) {
                Path part = upload.resolve(String.valueOf(number));
                if (!Files.isRegularFile(part)) {
                    throw new FileNotFoundException("upload " + uploadId + " has no part " + number);
                }
                try (FileChannel in = FileChannel.open(part)) {
                    long size = in.size();
                    for (long done = 0; done < size; ) {
                        done += in.transferTo(done, size - done, out);
                    }
                }
            }
        }
        Files.move(joined, object, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        deleteTree(upload);
        return Files.size(object);
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
        FileChannel channel;
        try {
            channel = FileChannel.open(object(key));
        } catch (NoSuchFileException e) {
            throw new FileNotFoundException("no recording " + key);
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
