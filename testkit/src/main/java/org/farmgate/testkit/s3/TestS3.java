package org.farmgate.testkit.s3;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;

/**
 * A real S3 API in the test JVM: S3Proxy on jclouds' filesystem backend, on a free loopback port, signing with
 * AWS's v4 like S3 itself. Each test makes a bucket of its own ({@link #bucket}); {@link #stop} makes the store go
 * away under a node, as an outage would.
 */
public final class TestS3 implements AutoCloseable {

    public static final String ACCESS_KEY = "farmgate-test-access";
    public static final String SECRET_KEY = "farmgate-test-secret-key-not-a-real-one";
    public static final String REGION = "us-east-1";

    private final BlobStoreContext context;
    private final Path dir;
    private S3Proxy proxy;
    private int port;

    private TestS3(Path dir) throws Exception {
        this.dir = dir;
        Properties properties = new Properties();
        properties.setProperty("jclouds.filesystem.basedir", dir.toString());
        this.context = ContextBuilder.newBuilder("filesystem").credentials("unused", "unused").overrides(properties)
                .build(BlobStoreContext.class);
        start(0);
    }

    public static TestS3 start() throws Exception {
        return new TestS3(Files.createTempDirectory("farmgate-s3-"));
    }

    private void start(int onPort) throws Exception {
        proxy = S3Proxy.builder().blobStore(context.getBlobStore())
                .endpoint(URI.create("http://127.0.0.1:" + onPort))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY).build();
        proxy.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!proxy.getState().equals("STARTED")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
            }
            Thread.sleep(10);
        }
        port = proxy.getPort();
    }

    /** Makes a bucket and returns its name. */
    public String bucket(String name) {
        context.getBlobStore().createContainerInLocation(null, name);
        return name;
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    /** Where the filesystem backend keeps {@code bucket}'s objects. */
    public Path dir() {
        return dir;
    }

    /** The store goes away: its port refuses connections until {@link #restart}. */
    public void stop() throws Exception {
        proxy.stop();
    }

    /** Back on the same port, with what it held. */
    public void restart() throws Exception {
        start(port);
    }

    /** The environment a node takes to keep its recordings in {@code bucket}. */
    public java.util.Map<String, String> nodeEnv(String bucket) {
        return java.util.Map.of("GW_RECORDING_S3_ENDPOINT", endpoint().toString(), "GW_RECORDING_S3_BUCKET", bucket,
                "GW_RECORDING_S3_REGION", REGION, "GW_RECORDING_S3_ACCESS_KEY", ACCESS_KEY,
                "GW_RECORDING_S3_SECRET_KEY", SECRET_KEY);
    }

    @Override
    public void close() throws Exception {
        try {
            proxy.stop();
        } finally {
            context.close();
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }
}
