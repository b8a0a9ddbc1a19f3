-- Private share links of decks (interface 2.10). The token is kept to show the link's URL
-- to its owner; lookups go by its SHA-256 hash. The password only as an argon2 hash.
-- Paired with the PostgreSQL migration 0003.

CREATE TABLE share_links (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    deck_id          INTEGER NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    token            TEXT NOT NULL,
    token_hash       TEXT NOT NULL UNIQUE,
    password_hash    TEXT,
    expires_at       INTEGER,
    notify_on_view   BOOLEAN NOT NULL DEFAULT FALSE,
    view_count       INTEGER NOT NULL DEFAULT 0,
    first_viewed_at  INTEGER,
    created_at       INTEGER NOT NULL,
    revoked_at       INTEGER
);
CREATE INDEX share_links_deck ON share_links(deck_id, created_at DESC, id DESC);
