package org.farmgate.node.recording;

import java.util.Map;
import org.farmgate.error.ConflictException;
import org.farmgate.node.config.RecordingSettings;

/**
 * Whether a new session is recorded: the site's mode, then its address-book entry's {@code enable_recording}
 * (rustguac's field), decided where the session is created and carried to its node with its origin.
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
