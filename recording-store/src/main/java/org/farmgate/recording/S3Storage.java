package org.farmgate.recording;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Recordings in an S3-compatible bucket, by AWS's SDK over the JDK's own HTTP client (one connection per call, which
 * a few uploads a minute per session do not miss; it keeps Netty's and Apache's clients out of the node).
 *
 * <p>A part is uploaded as an object of its own ({@code <key>.parts/<n>}), readable at once, so a running session's
 * recording plays from any node up to its last part; completing copies the parts into a multipart upload inside
 * storage ({@code UploadPartCopy}, no byte from the node again) and deletes them. The price: a part's bytes are kept
 * twice in the bucket until its recording completes, and three requests per part instead of one.
 *
 * <p>Checksums are sent and checked only where S3 requires them,
 * since several S3-compatible servers refuse the SDK's newer default trailers.
 */
public final class S3Storage implements RecordingStorage {

    private final S3Settings settings;
    private final S3Client s3;

    public S3Storage(S3Settings settings) {
        this.settings = settings;
        S3ClientBuilder builder = S3Client.builder().region(Region.of(settings.region())).forcePathStyle(true)
                .httpClient(UrlConnectionHttpClient.create())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(settings.accessKey() == null ? DefaultCredentialsProvider.builder().build()
                        : StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKey(),
                                settings.secretKey())));
        if (settings.endpoint() != null) {
            builder.endpointOverride(settings.endpoint());
        }
        this.s3 = builder.build();
    }

    @Override
    public String begin(String key) throws IOException {
        return call(() -> s3.createMultipartUpload(r -> r.bucket(settings.bucket()).key(name(key))
                .contentType("application/octet-stream")).uploadId());
    }

    /** A part is an object of its own until completion, so that it can be read while the session runs. */
    @Override
    public String part(String key, String uploadId, int number, Path file) throws IOException {
        return call(() -> s3.putObject(r -> r.bucket(settings.bucket()).key(partName(key, number))
                .contentType("application/octet-stream"), RequestBody.fromFile(file))).eTag();
    }

    @Override
    public long complete(String key, String uploadId, List<String> tags) throws IOException {
        if (tags.isEmpty()) {
            // S3 completes no upload without a part: a recording that never got a byte is no object.
            abort(key, uploadId);
            throw new FileNotFoundException("recording " + key + " has no part");
        }
        try {
            // Copied into the upload by storage itself: no byte travels from the node again.
            List<CompletedPart> parts = new ArrayList<>();
            for (int number = 1; number <= tags.size(); number++) {
                int part = number;
                String copied = call(() -> s3.uploadPartCopy(r -> r.sourceBucket(settings.bucket())
                        .sourceKey(partName(key, part)).destinationBucket(settings.bucket())
                        .destinationKey(name(key)).uploadId(uploadId).partNumber(part))).copyPartResult().eTag();
                parts.add(CompletedPart.builder().partNumber(number).eTag(copied).build());
            }
            call(() -> s3.completeMultipartUpload(r -> r.bucket(settings.bucket()).key(name(key)).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts))));
        } catch (StorageMissingException gone) {
            // Completed before (here or by another node), or aborted: the object says which.
        }
        long size = size(key).orElseThrow(() -> new FileNotFoundException("no upload " + uploadId + " and no "
                + "recording " + key));
        deleteParts(key);
        return size;
    }

    @Override
    public InputStream readPart(String key, String uploadId, int number, long first, long last) throws IOException {
        try {
            return call(() -> s3.getObject(r -> r.bucket(settings.bucket()).key(partName(key, number))
                    .range("bytes=" + first + "-" + last)));
        } catch (StorageMissingException gone) {
            throw new FileNotFoundException("upload " + uploadId + " has no part " + number);
        }
    }

    @Override
    public void abort(String key, String uploadId) throws IOException {
        try {
            call(() -> s3.abortMultipartUpload(r -> r.bucket(settings.bucket()).key(name(key)).uploadId(uploadId)));
        } catch (StorageMissingException gone) {
            // nothing left to drop
        }
        deleteParts(key);
    }

    /** The parts' own objects, however many there were (listed: a part sent twice or a count unknown leaves none). */
    private void deleteParts(String key) throws IOException {
        String parts = partName(key, 0);
        String prefix = parts.substring(0, parts.length() - 1);
        for (S3Object part : call(() -> s3.listObjectsV2Paginator(r -> r.bucket(settings.bucket()).prefix(prefix))
                .contents().stream().toList())) {
            call(() -> s3.deleteObject(r -> r.bucket(settings.bucket()).key(part.key())));
        }
    }

    @Override
    public OptionalLong size(String key) throws IOException {
        try {
            return OptionalLong.of(call(() -> s3.headObject(r -> r.bucket(settings.bucket()).key(name(key))))
                    .contentLength());
        } catch (StorageMissingException gone) {
            return OptionalLong.empty();
        }
    }

    @Override
    public InputStream read(String key, long first, long last) throws IOException {
        try {
            return call(() -> s3.getObject(r -> r.bucket(settings.bucket()).key(name(key))
                    .range("bytes=" + first + "-" + last)));
        } catch (StorageMissingException gone) {
            throw new FileNotFoundException("no recording " + key);
        }
    }

    @Override
    public void delete(String key) throws IOException {
        call(() -> s3.deleteObject(r -> r.bucket(settings.bucket()).key(name(key))));
    }

    @Override
    public String describe() {
        return settings.toString();
    }

    @Override
    public void close() {
        s3.close();
    }

    private String name(String key) {
        return settings.prefix() + RecordingStorage.checkKey(key);
    }

    private String partName(String key, int number) {
        return name(key) + ".parts/" + number;
    }

    /** The SDK's unchecked failures as the interface's: a missing key or upload apart, the rest as I/O. */
    private static <T> T call(java.util.function.Supplier<T> request) throws IOException {
        try {
            return request.get();
        } catch (NoSuchKeyException | NoSuchUploadException e) {
            throw new StorageMissingException(e.getMessage());
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new StorageMissingException(e.getMessage());
            }
            throw new IOException("S3 answered " + e.statusCode() + ": " + (e.awsErrorDetails() == null
                    ? e.getMessage() : e.awsErrorDetails().errorMessage()), e);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        } catch (SdkException e) {
            throw new IOException("S3 could not be reached: " + e.getMessage(), e);
        }
    }

    /** What S3 says of a key or an upload it does not have. */
    private static final class StorageMissingException extends FileNotFoundException {
        StorageMissingException(String message) {
            super(message);
        }
    }
}
