package org.farmgate.router.addressbook;

import java.time.Duration;

/**
 * How to reach Vault and where the address book lies in it (rustguac's layout:
 * {@code <mount>/data/<base>/shared/<folder path>/<entry>}).
 *
 * @param token a token, or null to log in with AppRole ({@code roleId}, {@code secretId})
 * @param caCertPem a PEM file of CA certificates to trust, or null for the JVM's
 * @param parallelism how many Vault calls a load runs at once
 * @param timeout for every call (connect and read)
 */
public record VaultSettings(String address, String token, String roleId, String secretId, String namespace,
        String caCertPem, String mount, String base, int parallelism, Duration timeout) {

    @Override
    public String toString() {
        return "VaultSettings[" + address + ", mount=" + mount + ", base=" + base + ", auth="
                + (token != null ? "token" : "approle") + "]";
    }
}
