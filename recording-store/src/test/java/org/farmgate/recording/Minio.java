package org.farmgate.recording;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * MinIO in a container, with a bucket, where Docker runs (nowhere else: S3Proxy in the JVM is the suite's S3 then).
 * The image is pinned: a test against "latest" would change under the suite.
 */
final class Minio implements AutoCloseable {

    static final String IMAGE = "minio/minio:RELEASE.2023-09-04T19-57-37Z";
    private static final String USER = "farmgate-test";
    private static final String PASSWORD = "farmgate-test-secret";
    private static final String REGION = "us-east-1";

    private final GenericContainer<?> container;
    private final S3Storage storage;

    private Minio(GenericContainer<?> container, S3Storage storage) {
        this.container = container;
        this.storage = storage;
    }

    /** A started MinIO and a store on its bucket {@code bucket}, or nothing where Docker does not run. */
    static Optional<Minio> startIfDocker(String bucket) {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return Optional.empty();
        }
        GenericContainer<?> container = new GenericContainer<>(IMAGE).withCommand("server", "/data")
                .withEnv("MINIO_ROOT_USER", USER).withEnv("MINIO_ROOT_PASSWORD", PASSWORD).withExposedPorts(9000)
                .waitingFor(Wait.forHttp("/minio/health/live").forPort(9000)
                        .withStartupTimeout(Duration.ofMinutes(2)));
        container.start();
        URI endpoint = URI.create("http://" + container.getHost() + ":" + container.getMappedPort(9000));
        try (S3Client admin = S3Client.builder().endpointOverride(endpoint).region(Region.of(REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(USER, PASSWORD)))
                .forcePathStyle(true).httpClient(UrlConnectionHttpClient.create()).build()) {
            admin.createBucket(request -> request.bucket(bucket));
        }
        return Optional.of(new Minio(container, new S3Storage(new S3Settings(endpoint, REGION, bucket, "farm-a",
                USER, PASSWORD))));
    }

    S3Storage storage() {
        return storage;
    }

    @Override
    public void close() {
        storage.close();
        container.stop();
    }
}
