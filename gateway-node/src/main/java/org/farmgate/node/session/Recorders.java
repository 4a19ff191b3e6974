package org.farmgate.node.session;

import org.farmgate.model.SessionInfo;

/** Starts the recording of a session this node opens, where its origin says it is recorded. */
@FunctionalInterface
public interface Recorders {

    Recorders NONE = (info, origin) -> RecordingTap.NONE;

    /** Called once, as the session opens here, under its lock: must not block. */
    RecordingTap start(SessionInfo session, Origin origin);
}
