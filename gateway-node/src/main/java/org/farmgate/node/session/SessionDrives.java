package org.farmgate.node.session;

import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.farmgate.error.InvalidRequestException;
import org.farmgate.model.SessionSpec;
import org.farmgate.node.config.DriveSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drive an RDP session gets when it asks for one (RDP drive redirection: a disk in the remote desktop, files
 * uploaded from the browser land in it, files put in its Download folder go to the browser). Its directory is the
 * node's own, under the drive root and named by the session's id, never by anything a caller said; guacd creates it
 * at the connection's start, and the node removes it with everything in it when the session ends.
 */
public final class SessionDrives {

    private static final Logger LOG = LoggerFactory.getLogger(SessionDrives.class);
    /** What a caller sets: a flag. Where the drive lives is never theirs to say. */
    public static final String ARGUMENT = "enable-drive";

    private final Vertx vertx;
    private final DriveSettings settings;

    public SessionDrives(Vertx vertx, DriveSettings settings) {
        this.vertx = vertx;
        this.settings = settings;
    }

    public static boolean wanted(SessionSpec spec) {
        return "true".equals(spec.parameters().get(ARGUMENT));
    }

    /**
     * Refuses a session whose flag is not a flag (guacd reads only "true" as true, so "yes" or "TRUE" would have been
     * a drive the node made and guacd never mounted), and one that asks for a drive this node cannot give. Checked
     * for the API's sessions, an address-book entry's and a peer's request alike.
     */
    public void check(SessionSpec spec, String nodeId) {
        String flag = spec.parameters().get(ARGUMENT);
        if (flag != null && !flag.equals("true") && !flag.equals("false")) {
            throw new InvalidRequestException("field 'enable_drive' must be true or false");
        }
        if (wanted(spec) && !settings.enabled()) {
            throw new InvalidRequestException("field 'enable_drive': node " + nodeId + " has no drive root "
                    + "(GW_DRIVE_ROOT), so RDP sessions get no drive there");
        }
    }

    /** The guacd arguments that give session {@code sessionId} its drive; none when it asked for none. */
    Map<String, String> arguments(String sessionId, SessionSpec spec) {
        if (!wanted(spec) || !settings.enabled()) {
            return Map.of();
        }
        return Map.of("drive-path", directory(sessionId).toString(), "create-drive-path", "true",
                "drive-name", settings.name());
    }

    /** Removes session {@code sessionId}'s drive, if it had one, on a worker thread: its session stopped here. */
    public void remove(String sessionId) {
        if (!settings.enabled()) {
            return;
        }
        Path directory = directory(sessionId);
        vertx.executeBlocking(() -> {
            deleteTree(directory);
            return null;
        }, false).onFailure(error -> LOG.warn("could not remove the drive of session {} at {}: {}", sessionId,
                directory, error.getMessage()));
    }

    /** A session id is a UUID this cluster made; anything else never names a directory. */
    private Path directory(String sessionId) {
        return settings.root().resolve(UUID.fromString(sessionId).toString());
    }

    private static void deleteTree(Path directory) throws IOException {
        if (!Files.exists(directory, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path); // a link inside is removed, never followed
            }
        }
    }
}
