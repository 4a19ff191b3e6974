package org.farmgate.durable;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.farmgate.model.Json;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Facts waiting on disk for the database: one JSON line each, appended at the end and read from a position kept in
 * a file beside (written whole by a rename). The spool outlives its node: a node started again writes what its
 * last run left here before anything new. A line half written when the node died is skipped.
 *
 * <p>Only the outbox's writer thread uses it. A crash between a batch's commit and the position's advance writes
 * that batch twice, which the writes' idempotence absorbs ({@link FactWriter}).
 */
final class Spool {

    private static final Logger LOG = LoggerFactory.getLogger(Spool.class);
    private static final ObjectMapper JSON = Json.mapper();

    private final Path file;
    private final Path position;
    private final long maxBytes;
    private long readAt;
    private long length;

    Spool(Path file, long maxBytes) {
        this.file = file;
        this.position = file.resolveSibling(file.getFileName() + ".position");
        this.maxBytes = maxBytes;
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            this.length = Files.exists(file) ? Files.size(file) : 0;
            this.readAt = Files.exists(position) ? Long.parseLong(Files.readString(position).trim()) : 0;
        } catch (IOException | NumberFormatException e) {
            throw new IllegalStateException("cannot open the outbox's spool " + file + ": " + e.getMessage(), e);
        }
        if (readAt > length) {
            readAt = length;
        }
        dropTornLine();
    }

    /** A node that died while appending may have left half a line: it goes, or the next line would join it. */
    private void dropTornLine() {
        if (length == 0) {
            return;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long end = length;
            ByteBuffer one = ByteBuffer.allocate(1);
            while (end > 0) {
                one.clear();
                channel.read(one, end - 1);
                if (one.get(0) == '\n') {
                    break;
                }
                end--;
            }
            if (end < length) {
                LOG.warn("outbox spool {}: dropped {} bytes of a fact half written when the node stopped", file,
                        length - end);
                channel.truncate(end);
                length = end;
                readAt = Math.min(readAt, end);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the outbox's spool " + file + ": " + e.getMessage(), e);
        }
    }

    boolean isEmpty() {
        return readAt >= length;
    }

    /** Bytes waiting. */
    long waiting() {
        return length - readAt;
    }

    /**
     * Appends what fits under the bound.
     *
     * @return how many of {@code facts} were appended (the first ones); the others are the caller's to count as lost
     */
    int append(List<Fact> facts) throws IOException {
        List<byte[]> lines = new ArrayList<>(facts.size());
        long adding = 0;
        for (Fact fact : facts) {
            byte[] line = (JSON.writeValueAsString(fact) + "\n").getBytes(StandardCharsets.UTF_8);
            if (waiting() + adding + line.length > maxBytes) {
                break;
            }
            lines.add(line);
            adding += line.length;
        }
        if (lines.isEmpty()) {
            return 0;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            for (byte[] line : lines) {
                ByteBuffer buffer = ByteBuffer.wrap(line);
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
            }
            channel.force(false);
        }
        length += adding;
        return lines.size();
    }

    /** Up to {@code max} facts from the read position, and how many bytes they took. */
    Batch peek(int max) throws IOException {
        List<Fact> facts = new ArrayList<>();
        long bytes = 0;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.position(readAt);
            BufferedReader reader = new BufferedReader(new InputStreamReader(Channels.newInputStream(channel),
                    StandardCharsets.UTF_8));
            String line;
            while (facts.size() < max && (line = reader.readLine()) != null) {
                long size = line.getBytes(StandardCharsets.UTF_8).length + 1L;
                if (readAt + bytes + size > length) {
                    break; // no newline yet: a line still being written, or half written by a crash
                }
                bytes += size;
                try {
                    facts.add(JSON.readValue(line, Fact.class));
                } catch (IOException e) {
                    LOG.warn("outbox spool {}: skipped a line that is not a fact ({})", file, e.getMessage());
                }
            }
        }
        return new Batch(facts, bytes);
    }

    /** The facts of {@code batch} are written: they are not read again. */
    void advance(Batch batch) throws IOException {
        readAt += batch.bytes();
        if (readAt >= length) {
            Files.deleteIfExists(file);
            Files.deleteIfExists(position);
            readAt = 0;
            length = 0;
            return;
        }
        Path next = position.resolveSibling(position.getFileName() + ".next");
        Files.writeString(next, Long.toString(readAt));
        Files.move(next, position, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    record Batch(List<Fact> facts, long bytes) {
    }
}
