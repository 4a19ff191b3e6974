package org.farmgate.model;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** Whether a node takes new sessions. Only {@link #UP} nodes do; the others keep the sessions they run. */
public enum NodeState {
    /** Takes new sessions. */
    UP,
    /** An admin or a shutdown asked it to take no new sessions; running ones go on. */
    DRAINING,
    /** Its guacd does not answer. */
    UNHEALTHY;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
