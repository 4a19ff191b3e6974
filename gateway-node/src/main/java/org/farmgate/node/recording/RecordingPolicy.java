package org.farmgate.node.recording;

import java.util.Map;
import org.farmgate.error.ConflictException;
import org.farmgate.error.ForbiddenException;
import org.farmgate.model.Role;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.config.RecordingSettings;

/**
 * Whether a new session is recorded: the site's mode, then its address-book entry's {@code enable_recording}
 * (rustguac's field), or an admin's ask for an ad-hoc one; decided where the session is created and carried to its
 * node with its origin.
 */
public final class RecordingPolicy {

    private final RecordingSettings settings;

    public RecordingPolicy(RecordingSettings settings) {
        this.settings = settings;
    }

    /** An ad-hoc session: recorded when everything is. */
    public boolean adHoc() {
        return settings.mode() == RecordingSettings.Mode.ALL;
    }

    /**
     * An ad-hoc session for {@code who}, who may have asked for it to be recorded ({@code "record": true}, admins
     * only: a recording is kept from the session's own user too).
     *
     * @throws ForbiddenException when someone else than an admin asks
     * @throws ConflictException when this gateway keeps no recordings
     */
    public boolean adHoc(Identity who, boolean asked) {
        if (!asked) {
            return adHoc();
        }
        if (who.role() != Role.ADMIN) {
            throw new ForbiddenException("only an admin asks for a session to be recorded (field 'record')");
        }
        if (!settings.enabled()) {
            throw new ConflictException("this gateway keeps no recordings (GW_RECORDING=off): a session cannot be "
                    + "recorded");
        }
        return true;
    }

    /**
     * A session from an entry with these public fields.
     *
     * @throws ConflictException when the entry must be recorded and this gateway keeps no recordings
     */
    public boolean forEntry(Map<String, Object> entry) {
        Object asked = entry.get("enable_recording");
        Boolean wanted = asked instanceof Boolean b ? b : asked == null ? null : Boolean.valueOf(asked.toString());
        if (Boolean.TRUE.equals(wanted) && !settings.enabled()) {
            throw new ConflictException("this entry must be recorded (enable_recording) and this gateway keeps no "
                    + "recordings (GW_RECORDING=off): ask an administrator");
        }
        if (wanted != null) {
            return wanted;
        }
        return adHoc();
    }
}
