-- Limits on guessing (the security issue's items 6-8), paired with the other engine's 0014.
--
-- `attempt_windows`: tries per key (a client address at /login, a share link, an address at
-- a share link or at /oauth/register) in a fixed window that ends at `expires_at`; one
-- upsert counts a try and reports the count, so parallel tries cannot all pass a check.
-- `login_failures`: failed sign-ins per account and client address (a stranger's failures
-- lock out the stranger's address, not the owner); a try is counted before its password is
-- checked and forgotten when it was right.
-- `oauth_clients.origin`: 'admin' for `lectern admin create-oauth-client`, 'registered' for
-- `/oauth/register` (the consent page shows those names as unverified). Public clients made
-- before this migration may have come from either; they count as registered.

CREATE TABLE attempt_windows (
    attempt_key TEXT PRIMARY KEY,
    tries       BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX attempt_windows_expires ON attempt_windows(expires_at);

CREATE TABLE login_failures (
    user_id        BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    address        TEXT NOT NULL,
    failures       BIGINT NOT NULL,
    last_failed_at BIGINT,
    PRIMARY KEY (user_id, address)
);

ALTER TABLE oauth_clients ADD COLUMN origin TEXT NOT NULL DEFAULT 'admin';
UPDATE oauth_clients SET origin = 'registered' WHERE secret_hash IS NULL;
