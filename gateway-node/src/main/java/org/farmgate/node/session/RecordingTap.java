package org.farmgate.node.session;

/**
 * What a recording hears of a session's tunnels: guacd's display stream on the session's own guacd connection
 * (the one opened first, which its anchor keeps while no client is attached, so a recording has no gap when the
 * browser is away), and the input the clients send guacd. Called on event loops, as the bytes pass: an
 * implementation copies what it keeps, never blocks, never pushes back, and drops rather than waits.
 */
public interface RecordingTap {

    RecordingTap NONE = new RecordingTap() {
        @Override
        public void display(byte[] bytes, int start, int end) {
        }

        @Override
        public void input(byte[] bytes, int start, int end) {
        }

        @Override
        public boolean wantsInput() {
            return false;
        }
    };

    /** Whole instructions guacd sent, in order; the array is the caller's and is reused after the call. */
    void display(byte[] bytes, int start, int end);

    /** One whole {@code key} or {@code mouse} instruction a client sent guacd. */
    void input(byte[] bytes, int start, int end);

    /** Whether {@link #input} is worth calling at all. */
    boolean wantsInput();

    /**
     * The same recording, for a tunnel on a connection that joined the session ({@code who}: a watcher by a share
     * link when {@code share}, else its own user on another connection): its input counts, its display is a copy of
     * what is recorded already; the join itself is noted beside the recording.
     */
    default RecordingTap joinedBy(String who, boolean share) {
        return inputOnly();
    }

    /** The same recording, for a tunnel on a joined connection: its input counts, its display is a copy. */
    default RecordingTap inputOnly() {
        RecordingTap whole = this;
        return new RecordingTap() {
            @Override
            public void display(byte[] bytes, int start, int end) {
            }

            @Override
            public void input(byte[] bytes, int start, int end) {
                whole.input(bytes, start, end);
            }

            @Override
            public boolean wantsInput() {
                return whole.wantsInput();
            }
        };
    }
}
