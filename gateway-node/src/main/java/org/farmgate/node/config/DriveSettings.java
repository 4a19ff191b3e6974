package org.farmgate.node.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where RDP sessions that ask for a drive ({@code enable_drive}) get one: a directory per session under
 * {@code GW_DRIVE_ROOT}, which guacd creates at the connection's start and this node removes at the session's end.
 * The root must be writable by guacd (the same host: guacd runs beside its node) and by this node. Unset: no
 * session gets a drive, and asking for one is refused.
 */
public record DriveSettings(Path root, String name) {

    public static DriveSettings from(ConfigSource source) {
        String root = source.string("GW_DRIVE_ROOT", null);
        String name = source.string("GW_DRIVE_NAME", "farmgate");
        if (root == null || root.isBlank()) {
            return new DriveSettings(null, name);
        }
        Path path = Path.of(root).toAbsolutePath().normalize();
        if (!Files.isDirectory(path)) {
            throw new ConfigException("GW_DRIVE_ROOT: " + path + " is not a directory");
        }
        return new DriveSettings(path, name);
    }

    public boolean enabled() {
        return root != null;
    }
}
