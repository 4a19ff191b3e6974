-- A session's recording: where it is kept, how far its upload got, and how it ended. One per session (its history
-- row's id); the history row's recording_file names its key, as rustguac's column names its file. The upload's
-- part tags are kept here, so that any node can complete the upload of a node that is gone.
CREATE TABLE session_recordings (
    session_id     VARCHAR(64)   NOT NULL PRIMARY KEY,
    storage_key    VARCHAR(512)  NOT NULL,
    upload_id      VARCHAR(1024) NOT NULL,
    node_id        VARCHAR(128)  NOT NULL,
    started_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    ended_at       TIMESTAMP WITH TIME ZONE,
    keys_included  BOOLEAN       NOT NULL,
    part_count     INTEGER       NOT NULL DEFAULT 0,
    part_tags      VARCHAR(65536) NOT NULL DEFAULT '',
    size_bytes     BIGINT        NOT NULL DEFAULT 0,
    state          VARCHAR(16)   NOT NULL,
    state_detail   VARCHAR(512),
    deleted_at     TIMESTAMP WITH TIME ZONE,
    deleted_by     VARCHAR(255)
);
CREATE INDEX session_recordings_started ON session_recordings (started_at);
CREATE INDEX session_recordings_state ON session_recordings (state);
