-- Private share links of decks (interface 2.10). The token is kept to show the link's URL
-- to its owner; lookups go by its SHA-256 hash. The password only as an argon2 hash.
-- Paired with the SQLite migration 0003.

CREATE TABLE share_links (
    id               BIGSERIAL PRIMARY KEY,
    deck_id          BIGINT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    token            TEXT NOT NULL,
    token_hash       TEXT NOT NULL UNIQUE,
    password_hash    TEXT,
    expires_at       BIGINT,
    notify_on_view   BOOLEAN NOT NULL DEFAULT FALSE,
    view_count       BIGINT NOT NULL DEFAULT 0,
    first_viewed_at  BIGINT,
    created_at       BIGINT NOT NULL,
    revoked_at       BIGINT
);
CREATE INDEX share_links_deck ON share_links(deck_id, created_at DESC, id DESC);
