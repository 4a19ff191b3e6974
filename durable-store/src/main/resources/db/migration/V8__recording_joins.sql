-- Who joined a recorded session while it ran (a watcher by a share link, or its own user coming back on a second
-- connection): noted beside the recording, which holds only the session's own display once. One line per join,
-- "<joined_at>\t<who>\t<share|attach>", bounded by the column (a session joined more than ~100 times keeps the first).
ALTER TABLE session_recordings ADD COLUMN joins VARCHAR(8192) NOT NULL DEFAULT '';
