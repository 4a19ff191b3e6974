package org.farmgate.node.config;

import java.nio.file.Path;
import java.time.Duration;
import org.farmgate.router.addressbook.VaultSettings;

/**
 * Where the address book comes from: Vault when {@code VAULT_ADDR} is set, else a local file when
 * {@code GW_ADDRESSBOOK_FILE} is, else nowhere (the API answers 404).
 */
public record AddressBookSettings(VaultSettings vault, Path file, Duration ttl) {

    static AddressBookSettings from(ConfigSource source) {
        Duration ttl = Duration.ofSeconds(source.integer("GW_ADDRESSBOOK_TTL_SECS", 60, 1, 86_400));
        String address = source.string("VAULT_ADDR", null);
        if (address != null) {
            String token = source.string("VAULT_TOKEN", null);
            String roleId = source.string("VAULT_ROLE_ID", null);
            String secretId = source.string("VAULT_SECRET_ID", null);
            if (token == null && (roleId == null || secretId == null)) {
                throw new ConfigException("VAULT_ADDR is set: set VAULT_TOKEN, or VAULT_ROLE_ID and VAULT_SECRET_ID");
            }
            String mount = trimSlashes(source.string("GW_VAULT_MOUNT", "secret"));
            String base = trimSlashes(source.string("GW_VAULT_BASE", "rustguac"));
            return new AddressBookSettings(new VaultSettings(address, token, roleId, secretId,
                    source.string("VAULT_NAMESPACE", null), source.string("VAULT_CACERT", null), mount, base,
                    source.integer("GW_VAULT_PARALLELISM", 32, 1, 256),
                    Duration.ofMillis(source.integer("GW_VAULT_TIMEOUT_MS", 5000, 100, 600_000))), null, ttl);
        }
        String file = source.string("GW_ADDRESSBOOK_FILE", null);
        return new AddressBookSettings(null, file == null ? null : Path.of(file), ttl);
    }

    public boolean configured() {
        return vault != null || file != null;
    }

    private static String trimSlashes(String value) {
        return value.replaceAll("^/+|/+$", "");
    }
}
