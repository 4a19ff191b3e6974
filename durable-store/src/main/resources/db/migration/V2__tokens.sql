-- API tokens and personal tokens: the hash only (SHA-256 of the token), never the token.
CREATE TABLE api_tokens (
    id          VARCHAR(64)  NOT NULL PRIMARY KEY,
    name        VARCHAR(128) NOT NULL,
    hash        CHAR(64)     NOT NULL UNIQUE,
    role        VARCHAR(16)  NOT NULL,
    groups_list VARCHAR(4000) NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE NOT NULL,
    expires_at  TIMESTAMP WITH TIME ZONE,
    created_by  VARCHAR(255),
    revoked_at  TIMESTAMP WITH TIME ZONE,
    revoked_by  VARCHAR(255)
);
CREATE INDEX api_tokens_live ON api_tokens (revoked_at, expires_at);
