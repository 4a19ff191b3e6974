-- The SSH host keys the gateway trusts, per target as people name it (host and port): trusted on first use or
-- pinned by an admin. A forgotten key leaves its row without a key, so that an older write arriving late (a trust
-- waiting in a node's spool) does not bring it back: every write carries its time, and only a newer one applies.
CREATE TABLE ssh_host_keys (
    host         VARCHAR(255)  NOT NULL,
    port         INTEGER       NOT NULL,
    host_key     VARCHAR(8192),
    fingerprint  VARCHAR(64),
    how          VARCHAR(16),
    changed_by   VARCHAR(255),
    session_id   VARCHAR(64),
    changed_at   TIMESTAMP WITH TIME ZONE NOT NULL,
    PRIMARY KEY (host, port)
);
