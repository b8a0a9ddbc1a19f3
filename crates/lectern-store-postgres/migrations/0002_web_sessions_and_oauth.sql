-- Web sign-in sessions, sign-in throttling, and the OAuth 2.0 authorization server's codes,
-- grants and tokens. Every secret (session id, code, token) is stored as its SHA-256 hash.
-- Paired with the SQLite migration 0002.

ALTER TABLE users ADD COLUMN failed_logins BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN last_failed_login_at BIGINT;

CREATE TABLE web_sessions (
    id_hash     TEXT PRIMARY KEY,
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    csrf_token  TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX web_sessions_user ON web_sessions(user_id);

CREATE TABLE oauth_grants (
    id          BIGSERIAL PRIMARY KEY,
    client_id   TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
    user_id     BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    scope       TEXT NOT NULL,
    resource    TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);

CREATE TABLE oauth_codes (
    code_hash       TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL REFERENCES oauth_clients(client_id) ON DELETE CASCADE,
    user_id         BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    redirect_uri    TEXT NOT NULL,
    scope           TEXT NOT NULL,
    resource        TEXT NOT NULL,
    code_challenge  TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    used_at         BIGINT,
    grant_id        BIGINT REFERENCES oauth_grants(id) ON DELETE CASCADE
);

CREATE TABLE oauth_tokens (
    id          BIGSERIAL PRIMARY KEY,
    token_hash  TEXT NOT NULL UNIQUE,
    grant_id    BIGINT NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL, -- 'access' or 'refresh'
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT,       -- a refresh token's rotation
    revoked_at  BIGINT
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens(grant_id);
