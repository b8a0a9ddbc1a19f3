-- Uploaded images (an extension of the interface): one row per distinct upload of an
-- account (by the SHA-256 of the uploaded bytes); the file itself lives in the file store
-- under file_key. Paired with SQLite 0009.

CREATE TABLE media (
    id            TEXT PRIMARY KEY,        -- random letters and digits; the public file name
    owner_id      BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    content_type  TEXT NOT NULL,
    bytes         BIGINT NOT NULL,        -- size of the stored file (counts to the quota)
    width         BIGINT,
    height        BIGINT,
    sha256        TEXT NOT NULL,           -- of the uploaded bytes
    file_key      TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    UNIQUE (owner_id, sha256)
);
CREATE INDEX media_owner_newest ON media(owner_id, created_at DESC, id);
