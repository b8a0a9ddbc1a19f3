-- Accounts, credentials, decks and slides. Times are microseconds since the Unix epoch (UTC).
-- Applied migrations never change; add a new numbered file instead (paired with PostgreSQL).

CREATE TABLE teams (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL UNIQUE,
    created_at  INTEGER NOT NULL
);

CREATE TABLE users (
    id              INTEGER PRIMARY KEY,
    username        TEXT NOT NULL UNIQUE,
    email           TEXT NOT NULL,
    name            TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    website_url     TEXT NOT NULL DEFAULT '',
    twitter_handle  TEXT NOT NULL DEFAULT '',
    password_hash   TEXT,
    team_id         INTEGER REFERENCES teams(id),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

CREATE TABLE api_keys (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    label         TEXT NOT NULL,
    lookup        TEXT NOT NULL UNIQUE,
    key_hash      TEXT NOT NULL,
    created_at    INTEGER NOT NULL,
    last_used_at  INTEGER,
    revoked_at    INTEGER
);
CREATE INDEX api_keys_user ON api_keys(user_id);

CREATE TABLE oauth_clients (
    id             INTEGER PRIMARY KEY,
    client_id      TEXT NOT NULL UNIQUE,
    name           TEXT NOT NULL,
    secret_hash    TEXT,
    redirect_uris  TEXT NOT NULL, -- JSON array of strings
    created_at     INTEGER NOT NULL
);

CREATE TABLE decks (
    id                     INTEGER PRIMARY KEY AUTOINCREMENT, -- ids are never reused
    owner_id               INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title                  TEXT NOT NULL,
    description            TEXT NOT NULL,
    slug                   TEXT NOT NULL,
    visibility             TEXT NOT NULL,
    css                    TEXT NOT NULL DEFAULT '',
    width                  INTEGER NOT NULL,
    height                 INTEGER NOT NULL,
    margin                 REAL NOT NULL,
    transition             TEXT NOT NULL,
    background_transition  TEXT NOT NULL,
    rtl                    INTEGER NOT NULL DEFAULT 0,
    loop_enabled           INTEGER NOT NULL DEFAULT 0,
    theme_font             TEXT NOT NULL,
    theme_color            TEXT NOT NULL,
    language               TEXT NOT NULL,
    created_at             INTEGER NOT NULL,
    updated_at             INTEGER NOT NULL,
    trashed_at             INTEGER,
    UNIQUE (owner_id, slug)
);
CREATE INDEX decks_owner_created ON decks(owner_id, created_at DESC, id DESC);
CREATE INDEX decks_owner_trashed ON decks(owner_id, trashed_at DESC, id DESC);

-- A deck's slide order is the byte order of `rank` (fractional order keys made by the core);
-- slides that share a `group_id` and are adjacent in that order form a vertical group.
CREATE TABLE slides (
    id            TEXT PRIMARY KEY,
    deck_id       INTEGER NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    rank          TEXT NOT NULL,
    group_id      INTEGER,
    html          TEXT NOT NULL,
    notes         TEXT,
    title         TEXT NOT NULL,
    text_preview  TEXT NOT NULL,
    html_bytes    INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (deck_id, rank)
);
-- Covers the order scan (id, rank, group) so it never touches the table rows.
CREATE INDEX slides_order ON slides(deck_id, rank, id, group_id);
