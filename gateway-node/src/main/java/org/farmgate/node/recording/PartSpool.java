package org.farmgate.node.recording;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One recording's parts on local disk while they wait to be uploaded: the part being written, and sealed ones.
 * Blocking, and used by one task at a time (the recording's chain on a worker), so it needs no lock.
 */
final class PartSpool {

    private final Path dir;
    private final long partBytes;
    private FileChannel current;
    private int currentNumber = 1;
    private long currentBytes;

    PartSpool(Path dir, long partBytes) {
        this.dir = dir;
        this.partBytes = partBytes;
    }

    /**
     * Appends {@code chunk} to the part being written.
     *
     * @return the number of a part this filled and sealed, or 0
     */
    int append(byte[] chunk) throws IOException {
        if (current == null) {
            Files.createDirectories(dir);
            current = FileChannel.open(file(currentNumber), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
            currentBytes = 0;
        }
        ByteBuffer bytes = ByteBuffer.wrap(chunk);
        while (bytes.hasRemaining()) {
            current.write(bytes);
        }
        currentBytes += chunk.length;
        return currentBytes >= partBytes ? seal() : 0;
    }

    /** Seals the part being written, if it holds anything; returns its number, or 0. */
    int seal() throws IOException {
        if (current == null) {
            return 0;
        }
        current.close();
        current = null;
        if (currentBytes == 0) {
            Files.deleteIfExists(file(currentNumber));
            return 0;
        }
        return currentNumber++;
    }

    Path file(int number) {
        return dir.resolve(number + ".part");
    }

    /** Everything goes: the recording was uploaded, or given up. */
    void delete() {
        try {
            if (current != null) {
                current.close();
                current = null;
            }
            if (Files.isDirectory(dir)) {
                try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                    for (Path file : files) {
                        Files.deleteIfExists(file);
                    }
                }
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
