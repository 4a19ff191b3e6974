package org.farmgate.recording;

import java.net.URI;
import java.util.Objects;

/**
 * Where an S3-compatible store is and how to sign for it. Addressed path-style ({@code endpoint/bucket/key}), which
 * every S3-compatible server takes (MinIO, Ceph, S3Proxy) and AWS still serves.
 *
 * @param endpoint null for AWS itself in {@code region}
 * @param prefix put before every key, empty or ending in {@code /}
 * @param accessKey null to take AWS's default chain (environment, profile, instance role)
 */
public record S3Settings(URI endpoint, String region, String bucket, String prefix, String accessKey,
        String secretKey) {

    public S3Settings {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(bucket, "bucket");
        prefix = prefix == null ? "" : prefix;
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
            prefix = prefix + "/";
        }
        if ((accessKey == null) != (secretKey == null)) {
            throw new IllegalArgumentException("an access key and a secret key go together");
        }
    }

    /** Never the secret. */
    @Override
    public String toString() {
        return "s3://" + bucket + "/" + prefix + (endpoint == null ? " (" + region + ")" : " at " + endpoint);
    }
}
