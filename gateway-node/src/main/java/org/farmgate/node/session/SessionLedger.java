package org.farmgate.node.session;

import org.farmgate.model.SessionInfo;

/** Told when a session's cost becomes real (its guacd connection exists) and when it is freed. */
public interface SessionLedger {

    void activated(SessionInfo session);

    void released(SessionInfo session);

    /** For a node that charges nothing to anyone (tests of the session life alone). */
    SessionLedger NONE = new SessionLedger() {
        @Override
        public void activated(SessionInfo session) {
        }

        @Override
        public void released(SessionInfo session) {
        }
    };
}
