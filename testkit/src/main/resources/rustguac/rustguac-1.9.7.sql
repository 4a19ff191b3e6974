-- The tables rustguac 1.9.7 creates (init_db in src/db.rs of sol1/rustguac at tag v1.9.7, commit a897fcc), with
-- rows of the kinds its code writes (RustguacDatabase sets the live tokens' hashes).
CREATE TABLE admins (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, api_key_hash TEXT NOT NULL,
    allowed_ips TEXT, expires_at TEXT, disabled INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (datetime('now')), last_used_at TEXT);
CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL DEFAULT '',
    oidc_subject TEXT, role TEXT NOT NULL DEFAULT 'viewer', disabled INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (datetime('now')), last_login_at TEXT, oidc_groups TEXT NOT NULL DEFAULT '');
CREATE TABLE auth_sessions (token_hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
    created_at TEXT NOT NULL DEFAULT (datetime('now')), expires_at TEXT NOT NULL);
CREATE TABLE group_role_mappings (id INTEGER PRIMARY KEY AUTOINCREMENT, oidc_group TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL, created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE user_api_tokens (id INTEGER PRIMARY KEY AUTOINCREMENT, user_id INTEGER NOT NULL REFERENCES users(id),
    name TEXT NOT NULL, token_hash TEXT NOT NULL UNIQUE, max_role TEXT, expires_at TEXT,
    disabled INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL DEFAULT (datetime('now')), last_used_at TEXT,
    UNIQUE(user_id, name));
CREATE TABLE token_audit_log (id INTEGER PRIMARY KEY AUTOINCREMENT, token_id INTEGER, token_name TEXT,
    user_email TEXT NOT NULL, action TEXT NOT NULL, ip_addr TEXT, details TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE session_history (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
    session_type TEXT NOT NULL, hostname TEXT NOT NULL, port INTEGER, username TEXT NOT NULL DEFAULT '',
    created_by TEXT NOT NULL, address_book_entry TEXT, address_book_folder TEXT, entry_display_name TEXT,
    started_at TEXT NOT NULL DEFAULT (datetime('now')), ended_at TEXT, duration_secs INTEGER, recording_file TEXT,
    status TEXT NOT NULL DEFAULT 'active');
CREATE TABLE addressbook_audit_log (id INTEGER PRIMARY KEY AUTOINCREMENT, user_email TEXT NOT NULL,
    action TEXT NOT NULL, scope TEXT NOT NULL, folder_path TEXT NOT NULL, entry_name TEXT, ip_addr TEXT,
    details TEXT, created_at TEXT NOT NULL DEFAULT (datetime('now')));

-- admin keys: the bare 64-hex key, its SHA-256 in hex; one limited to addresses, one expired
INSERT INTO admins (name, api_key_hash, created_at) VALUES ('ops-script',
    'e7a2eb5d5b3a3e5d7b40bea6b1b9b9a5e9f4fa8ad1b3c4f2a8f0d5b7c3e1a9d4', '2026-01-05 09:00:00');
INSERT INTO admins (name, api_key_hash, allowed_ips) VALUES ('office-only', 'aa', '10.0.0.0/8');
INSERT INTO admins (name, api_key_hash, expires_at) VALUES ('old', 'bb', '2020-01-01T00:00:00Z');

INSERT INTO group_role_mappings (oidc_group, role, created_at) VALUES ('farm-admins', 'admin', '2026-01-01 08:00:00');
INSERT INTO group_role_mappings (oidc_group, role, created_at) VALUES ('farm-ops', 'operator', '2026-01-01 08:00:00');

-- alice's role is her group's; bob was given poweruser by hand; dan has no subject
INSERT INTO users (email, name, oidc_subject, role, created_at, last_login_at, oidc_groups) VALUES
    ('alice@farm.example', 'Alice', 'sub-alice', 'admin', '2026-01-02 10:00:00', '2026-03-01 12:00:00',
     'farm-admins,everyone');
INSERT INTO users (email, name, oidc_subject, role, disabled, created_at, oidc_groups) VALUES
    ('bob@farm.example', 'Bob', 'sub-bob', 'poweruser', 1, '2026-01-03 10:00:00', 'farm-ops');
INSERT INTO users (email, name, oidc_subject, role) VALUES ('dan@farm.example', 'Dan', NULL, 'operator');

-- alice's token: rgu_ and 64 hex, hashed whole; capped at operator
INSERT INTO user_api_tokens (user_id, name, token_hash, max_role, created_at) VALUES (1, 'laptop',
    '0f3c1a5b7d9e2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d8f0a2c4e6b8d0f2a', 'operator', '2026-02-01 10:00:00');
INSERT INTO user_api_tokens (user_id, name, token_hash, disabled) VALUES (1, 'off', 'cc', 1);

INSERT INTO session_history (session_id, session_type, hostname, port, username, created_by, address_book_entry,
    address_book_folder, entry_display_name, started_at, ended_at, duration_secs, status) VALUES
    ('7a1f0000-0000-4000-8000-000000000001', 'ssh', 'db1.farm', NULL, 'root', 'alice@farm.example',
     'shared/prod/db1', 'shared/prod', 'Database 1', '2026-02-10 09:00:00', '2026-02-10 10:30:00', 5400,
     'completed');
INSERT INTO session_history (session_id, session_type, hostname, created_by, started_at, ended_at, duration_secs,
    status) VALUES ('7a1f0000-0000-4000-8000-000000000002', 'rdp', 'win1.farm', 'ops-script',
    '2026-02-11 09:00:00', '2026-02-11 09:00:20', 20, 'error');
INSERT INTO session_history (session_id, session_type, hostname, created_by, started_at, status) VALUES
    ('7a1f0000-0000-4000-8000-000000000003', 'vnc', 'kiosk.farm', 'bob@farm.example', '2026-02-12 09:00:00',
     'active');

INSERT INTO token_audit_log (token_id, token_name, user_email, action, ip_addr, details, created_at) VALUES
    (1, 'laptop', 'bob@farm.example', 'created', '192.0.2.7', '{"max_role":"operator","expires_at":null}',
     '2026-02-01 10:00:00');
INSERT INTO addressbook_audit_log (user_email, action, scope, folder_path, entry_name, ip_addr, details, created_at)
    VALUES ('alice@farm.example', 'create_entry', 'shared', 'prod', 'db1', '192.0.2.8', '{"fields":5}',
    '2026-01-20 08:00:00');
