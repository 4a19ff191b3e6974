package org.farmgate.recording;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.stream.Stream;
import org.farmgate.testkit.s3.TestS3;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both kinds of storage through the same steps: S3's API (real ones: S3Proxy in this JVM, and MinIO in a container
 * where Docker runs) and a local directory.
 */
class RecordingStorageTest {

    private static TestS3 s3;
    private static S3Storage bucket;
    private static LocalDirectoryStorage directory;
    private static java.util.Optional<Minio> minio;
    @TempDir
    static Path dir;

    @BeforeAll
    static void start() throws Exception {
        s3 = TestS3.start();
        bucket = new S3Storage(new S3Settings(s3.endpoint(), TestS3.REGION, s3.bucket("recordings"), "farm-a",
                TestS3.ACCESS_KEY, TestS3.SECRET_KEY));
        directory = new LocalDirectoryStorage(dir.resolve("recordings"));
        minio = Minio.startIfDocker("recordings");
    }

    @AfterAll
    static void stop() throws Exception {
        bucket.close();
        s3.close();
        minio.ifPresent(Minio::close);
    }

    static Stream<RecordingStorage> storages() {
        return Stream.concat(Stream.of(bucket, directory), minio.map(Minio::storage).stream());
    }

    @ParameterizedTest
    @MethodSource("storages")
    void partsBecomeOneRecordingReadByRanges(RecordingStorage storage) throws Exception {
        byte[] first = bytes(1, (int) RecordingStorage.MIN_PART_BYTES);
        byte[] last = bytes(2, 1234);
        String key = "session-" + storage.getClass().getSimpleName() + ".guac";
        String upload = storage.begin(key);
        assertTrue(storage.size(key).isEmpty(), "nothing is readable before the upload completes");
        // Parts may arrive again (a retry): the last copy counts.
        storage.part(key, upload, 1, file(bytes(9, (int) RecordingStorage.MIN_PART_BYTES)));
        String lastTag = storage.part(key, upload, 2, file(last));
        String firstTag = storage.part(key, upload, 1, file(first));
        assertArrayEquals(Arrays.copyOfRange(first, 10, 20), readPart(storage, key, upload, 1, 10, 19),
                "a part is read while the session runs, the last copy sent");
        assertArrayEquals(last, readPart(storage, key, upload, 2, 0, last.length - 1L));

        assertEquals(first.length + last.length, storage.complete(key, upload, List.of(firstTag, lastTag)));
        assertThrows(FileNotFoundException.class, () -> storage.readPart(key, upload, 2, 0, 1).close(),
                "the parts are gone once they are one recording");
        assertEquals(OptionalLong.of(first.length + last.length), storage.size(key));
        assertEquals(first.length + last.length, storage.complete(key, upload, List.of(firstTag, lastTag)),
                "completing again is harmless");

        byte[] whole = concat(first, last);
        assertArrayEquals(whole, read(storage, key, 0, whole.length - 1L));
        assertArrayEquals(Arrays.copyOfRange(whole, first.length - 10, first.length + 10),
                read(storage, key, first.length - 10, first.length + 9), "a range across the parts");
        assertArrayEquals(Arrays.copyOfRange(whole, whole.length - 1, whole.length),
                read(storage, key, whole.length - 1L, whole.length - 1L));

        storage.delete(key);
        assertTrue(storage.size(key).isEmpty());
        storage.delete(key);
        assertThrows(FileNotFoundException.class, () -> storage.read(key, 0, 1).close());
    }

    @ParameterizedTest
    @MethodSource("storages")
    void anAbortedUploadLeavesNothing(RecordingStorage storage) throws Exception {
        String key = "aborted-" + storage.getClass().getSimpleName() + ".guac";
        String upload = storage.begin(key);
        String tag = storage.part(key, upload, 1, file(bytes(3, 100)));
        storage.abort(key, upload);
        storage.abort(key, upload);
        assertTrue(storage.size(key).isEmpty());
        assertThrows(FileNotFoundException.class, () -> storage.readPart(key, upload, 1, 0, 1).close());
        assertThrows(FileNotFoundException.class, () -> storage.complete(key, upload, List.of(tag)));
    }

    @ParameterizedTest
    @MethodSource("storages")
    void keysThatCouldReachElsewhereAreRefused(RecordingStorage storage) {
        for (String key : List.of("../x.guac", "/etc/passwd", "a//b", "a b", "", "x\n")) {
            assertThrows(IllegalArgumentException.class, () -> storage.begin(key), key);
            assertThrows(IllegalArgumentException.class, () -> storage.size(key), key);
        }
    }

    /**
     * The directory takes a spool's file by a rename when it can (one write of the bytes instead of two), copies it
     * from another file system, and a completion that broke off after appending is tried again to the same bytes.
     */
    @org.junit.jupiter.api.Test
    void theDirectoryTakesPartsByRenameAndCompletesAgainAfterABreak() throws Exception {
        Path elsewhere = Path.of("/dev/shm");
        Path spooledElsewhere = Files.isDirectory(elsewhere) && !Files.getFileStore(elsewhere)
                .equals(Files.getFileStore(dir)) ? Files.createTempFile(elsewhere, "farmgate-part", ".bin") : null;
        byte[] first = bytes(4, 300);
        byte[] second = bytes(5, 200);
        byte[] third = bytes(6, 100);
        String key = "folder/retried.guac";
        String upload = directory.begin(key);
        Path spooled = file(first);
        String one = directory.part(key, upload, 1, spooled);
        assertTrue(Files.notExists(spooled), "a file on the same file system is taken, not copied");
        String two;
        if (spooledElsewhere != null) {
            Files.write(spooledElsewhere, second);
            two = directory.part(key, upload, 2, spooledElsewhere);
            Files.deleteIfExists(spooledElsewhere); // the caller's, as when the spool is on another disk
        } else {
            two = directory.part(key, upload, 2, file(second));
        }
        String three = directory.part(key, upload, 3, file(third));
        // A completion that appended part 2 to the first and then broke off:
        Path firstPart = dir.resolve("recordings/.uploads").resolve(upload).resolve("1");
        Files.write(firstPart, second, java.nio.file.StandardOpenOption.APPEND);

        assertEquals(600, directory.complete(key, upload, List.of(one, two, three)));
        assertArrayEquals(concat(concat(first, second), third), read(directory, key, 0, 599));
        assertTrue(Files.notExists(firstPart.getParent()), "the upload's directory goes");
        directory.delete(key);
    }

    @org.junit.jupiter.api.Test
    void theDescriptionNamesNoSecret() {
        assertTrue(bucket.describe().contains("s3://recordings/farm-a/"), bucket.describe());
        assertTrue(!bucket.describe().contains(TestS3.SECRET_KEY) && !bucket.describe().contains(TestS3.ACCESS_KEY));
    }

    @org.junit.jupiter.api.Test
    void aStoreThatIsGoneIsAnIoErrorNotAHang() throws Exception {
        try (S3Storage nowhere = new S3Storage(new S3Settings(java.net.URI.create("http://127.0.0.1:9"),
                TestS3.REGION, "recordings", "", TestS3.ACCESS_KEY, TestS3.SECRET_KEY))) {
            IOException failed = assertThrows(IOException.class, () -> nowhere.begin("x.guac"));
            assertTrue(failed.getMessage().contains("could not be reached"), failed.getMessage());
        }
    }

    private static byte[] read(RecordingStorage storage, String key, long first, long last) throws IOException {
        try (InputStream in = storage.read(key, first, last)) {
            return in.readAllBytes();
        }
    }

    private static byte[] readPart(RecordingStorage storage, String key, String upload, int number, long first,
            long last) throws IOException {
        try (InputStream in = storage.readPart(key, upload, number, first, last)) {
            return in.readAllBytes();
        }
    }

    private static Path file(byte[] content) throws IOException {
        Path file = Files.createTempFile(dir, "part", ".bin");
        return Files.write(file, content);
    }

    private static byte[] bytes(long seed, int length) {
        byte[] out = new byte[length];
        new Random(seed).nextBytes(out);
        return out;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
