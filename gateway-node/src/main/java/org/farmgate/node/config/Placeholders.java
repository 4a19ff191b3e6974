package org.farmgate.node.config;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Secrets left as the examples ship them. A manifest's {@code change-me-to-a-long-random-value} works as a password
 * (cert-manager even encrypts the keystore with it), so nothing else would stop a cluster from running on a secret
 * printed in this repository; the node refuses one at start, as it refuses a cluster key that is not a key.
 */
final class Placeholders {

    private static final Pattern PLACEHOLDER = Pattern.compile(
            "change[-_ ]?me|replace[-_ ]?(with|me)|your[-_ ]?(secret|password|token)|placeholder");

    private Placeholders() {
    }

    /** {@code value}, unless it reads as an example's placeholder. */
    static String refused(String key, String value) {
        if (value != null && PLACEHOLDER.matcher(value.toLowerCase(Locale.ROOT)).find()) {
            throw new ConfigException(key + " is still the example's placeholder; set a long random value of your "
                    + "own (for instance `openssl rand -base64 32`)");
        }
        return value;
    }
}
