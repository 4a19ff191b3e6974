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
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Recordings in an S3-compatible bucket, by AWS's SDK over the JDK's own HTTP client (one connection per call, which
 * a few uploads a minute per session do not miss; it keeps Netty's and Apache's clients out of the node).
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

    @Override
    public String part(String key, String uploadId, int number, Path file) throws IOException {
        return call(() -> s3.uploadPart(r -> r.bucket(settings.bucket()).key(name(key)).uploadId(uploadId)
                .partNumber(number), RequestBody.fromFile(file))).eTag();
    }

    @Override
    public long complete(String key, String uploadId, List<String> tags) throws IOException {
        if (tags.isEmpty()) {
            // S3 completes no upload without a part: a recording that never got a byte is no object.
            abort(key, uploadId);
            throw new FileNotFoundException("recording " + key + " has no part");
        }
        List<CompletedPart> parts = new ArrayList<>();
        for (int i = 0; i < tags.size(); i++) {
            parts.add(CompletedPart.builder().partNumber(i + 1).eTag(tags.get(i)).build());
        }
        try {
            call(() -> s3.completeMultipartUpload(r -> r.bucket(settings.bucket()).key(name(key)).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts))));
        } catch (StorageMissingException gone) {
            // Completed before (here or by another node), or aborted: the object says which.
        }
        return size(key).orElseThrow(() -> new FileNotFoundException("no upload " + uploadId + " and no "
                + "recording " + key));
    }

    @Override
    public void abort(String key, String uploadId) throws IOException {
        try {
            call(() -> s3.abortMultipartUpload(r -> r.bucket(settings.bucket()).key(name(key)).uploadId(uploadId)));
        } catch (StorageMissingException gone) {
            // nothing left to drop
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
