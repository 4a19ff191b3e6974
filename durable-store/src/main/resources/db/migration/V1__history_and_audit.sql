-- Session history: rustguac 1.9's columns (session_id ... status), then what a cluster adds.
-- Written in the SQL that PostgreSQL and H2 (in PostgreSQL mode) both take.
CREATE TABLE session_history (
    session_id          VARCHAR(64)  NOT NULL PRIMARY KEY,
    session_type        VARCHAR(16)  NOT NULL,
    hostname            VARCHAR(255) NOT NULL,
    port                INTEGER,
    username            VARCHAR(255) NOT NULL,
    created_by          VARCHAR(255) NOT NULL,
    address_book_entry  VARCHAR(255),
    address_book_folder VARCHAR(1024),
    entry_display_name  VARCHAR(255),
    started_at          TIMESTAMP WITH TIME ZONE NOT NULL,
    ended_at            TIMESTAMP WITH TIME ZONE,
    duration_secs       BIGINT,
    recording_file      VARCHAR(255),
    status              VARCHAR(16)  NOT NULL,
    owner_id            VARCHAR(255) NOT NULL,
    created_by_email    VARCHAR(255),
    node_id             VARCHAR(255) NOT NULL,
    client_address      VARCHAR(64),
    end_reason          VARCHAR(16),
    ended_by            VARCHAR(255),
    end_detail          VARCHAR(1024),
    bytes_to_client     BIGINT,
    bytes_from_client   BIGINT,
    watchers            INTEGER      NOT NULL DEFAULT 0
);
CREATE INDEX session_history_started ON session_history (started_at);
CREATE INDEX session_history_owner ON session_history (owner_id, started_at);
CREATE INDEX session_history_created_by ON session_history (created_by);
CREATE INDEX session_history_open ON session_history (node_id, ended_at);

-- One row per watcher's join by a share link.
CREATE TABLE watcher_history (
    join_id        VARCHAR(64)  NOT NULL PRIMARY KEY,
    session_id     VARCHAR(64)  NOT NULL,
    watcher_name   VARCHAR(255) NOT NULL,
    share_id       VARCHAR(64)  NOT NULL,
    read_only      BOOLEAN      NOT NULL,
    joined_at      TIMESTAMP WITH TIME ZONE NOT NULL,
    left_at        TIMESTAMP WITH TIME ZONE,
    leave_reason   VARCHAR(255)
);
CREATE INDEX watcher_history_session ON watcher_history (session_id);

-- The audit log: append-only, each row's hash chained to the row before (AuditChain).
CREATE TABLE audit_log (
    seq            BIGINT       NOT NULL PRIMARY KEY,
    event_id       VARCHAR(64)  NOT NULL UNIQUE,
    at             TIMESTAMP WITH TIME ZONE NOT NULL,
    action         VARCHAR(64)  NOT NULL,
    outcome        VARCHAR(16)  NOT NULL,
    actor_id       VARCHAR(255),
    actor_name     VARCHAR(255),
    actor_role     VARCHAR(16),
    client_address VARCHAR(64),
    target         VARCHAR(512),
    detail         VARCHAR(2000),
    node_id        VARCHAR(255) NOT NULL,
    prev_hash      CHAR(64)     NOT NULL,
    hash           CHAR(64)     NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_actor ON audit_log (actor_id, at);
CREATE INDEX audit_log_action ON audit_log (action, at);

-- The chain's end: locked by every append, so that appends from every node form one chain.
CREATE TABLE audit_head (
    id   INTEGER  NOT NULL PRIMARY KEY,
    seq  BIGINT   NOT NULL,
    hash CHAR(64) NOT NULL
);
INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');

-- Work one node of the cluster does at a time (the retention purge, closing rows whose node is gone): a lease.
CREATE TABLE maintenance_lease (
    name   VARCHAR(32)  NOT NULL PRIMARY KEY,
    holder VARCHAR(255),
    until  TIMESTAMP WITH TIME ZONE NOT NULL
);
INSERT INTO maintenance_lease (name, holder, until) VALUES ('purge', NULL, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00');
