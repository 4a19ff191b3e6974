package org.farmgate.node.session;

/** Told when a session's cost becomes real (its guacd connection exists) and when it is freed. */
public interface SessionLedger {

    void activated(String sessionId);

    void released(String sessionId);

    /** For a node that charges nothing to anyone (tests of the session life alone). */
    SessionLedger NONE = new SessionLedger() {
        @Override
        public void activated(String sessionId) {
        }

        @Override
        public void released(String sessionId) {
        }
    };
}
