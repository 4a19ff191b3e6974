package org.farmgate.node.recording;

import java.util.Map;
import org.farmgate.error.ConflictException;
import org.farmgate.error.ForbiddenException;
import org.farmgate.model.Role;
import org.farmgate.node.auth.Identity;
import org.farmgate.node.config.RecordingSettings;

/**
 * Whether a new session is recorded: its address-book entry's {@code enable_recording} (rustguac's field), else its
 * folder's (the same field in the folder's {@code .config}, the nearest folder up that says), else the site's mode;
 * or an admin's ask for an ad-hoc one. Decided where the session is created and carried to its node with its origin.
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

    /** A session from an entry with these public fields, in a folder that says nothing of recording. */
    public boolean forEntry(Map<String, Object> entry) {
        return forEntry(entry, null);
    }

    /**
     * A session from an entry with these public fields, in a folder whose setting (its own, or its nearest ancestor's
     * that has one) is {@code folder}, null when none says. The most specific word wins: the entry's, the folder's,
     * then the site's mode.
     *
     * @throws ConflictException when the session must be recorded and this gateway keeps no recordings
     */
    public boolean forEntry(Map<String, Object> entry, Boolean folder) {
        Object asked = entry.get("enable_recording");
        Boolean wanted = asked instanceof Boolean b ? b : asked == null ? null : Boolean.valueOf(asked.toString());
        String who = wanted != null ? "this entry" : "this entry's folder";
        wanted = wanted != null ? wanted : folder;
        if (Boolean.TRUE.equals(wanted) && !settings.enabled()) {
            throw new ConflictException(who + " must be recorded (enable_recording) and this gateway keeps no "
                    + "recordings (GW_RECORDING=off): ask an administrator");
        }
        if (wanted != null) {
            return wanted;
        }
        return adHoc();
    }
}
