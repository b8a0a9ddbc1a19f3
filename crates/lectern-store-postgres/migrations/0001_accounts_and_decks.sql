-- Accounts, credentials, decks and slides: the PostgreSQL twin of the SQLite migration 0001.
-- Times are microseconds since the Unix epoch (UTC), as on SQLite, so both backends hold the
-- same values. Applied migrations never change; add a new numbered file instead.

CREATE TABLE teams (
    id          BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL,
    slug        TEXT NOT NULL UNIQUE,
    created_at  BIGINT NOT NULL
);

CREATE TABLE users (
    id              BIGSERIAL PRIMARY KEY,
    username        TEXT NOT NULL UNIQUE,
    email           TEXT NOT NULL,
    name            TEXT NOT NULL,
    description     TEXT NOT NULL DEFAULT '',
    website_url     TEXT NOT NULL DEFAULT '',
    twitter_handle  TEXT NOT NULL DEFAULT '',
    password_hash   TEXT,
    team_id         BIGINT REFERENCES teams(id),
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id            BIGSERIAL PRIMARY KEY,
    user_id       BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    label         TEXT NOT NULL,
    lookup        TEXT NOT NULL UNIQUE,
    key_hash      TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    last_used_at  BIGINT,
    revoked_at    BIGINT
);
CREATE INDEX api_keys_user ON api_keys(user_id);

CREATE TABLE oauth_clients (
    id             BIGSERIAL PRIMARY KEY,
    client_id      TEXT NOT NULL UNIQUE,
    name           TEXT NOT NULL,
    secret_hash    TEXT,
    redirect_uris  TEXT NOT NULL, -- JSON array of strings
    created_at     BIGINT NOT NULL
);

CREATE TABLE decks (
    id                     BIGSERIAL PRIMARY KEY,
    owner_id               BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    title                  TEXT NOT NULL,
    description            TEXT NOT NULL,
    slug                   TEXT NOT NULL,
    visibility             TEXT NOT NULL,
    css                    TEXT NOT NULL DEFAULT '',
    width                  BIGINT NOT NULL,
    height                 BIGINT NOT NULL,
    margin                 DOUBLE PRECISION NOT NULL,
    transition             TEXT NOT NULL,
    background_transition  TEXT NOT NULL,
    rtl                    BOOLEAN NOT NULL DEFAULT FALSE,
    loop_enabled           BOOLEAN NOT NULL DEFAULT FALSE,
    theme_font             TEXT NOT NULL,
    theme_color            TEXT NOT NULL,
    language               TEXT NOT NULL,
    created_at             BIGINT NOT NULL,
    updated_at             BIGINT NOT NULL,
    trashed_at             BIGINT,
    UNIQUE (owner_id, slug)
);
CREATE INDEX decks_owner_created ON decks(owner_id, created_at DESC, id DESC);
CREATE INDEX decks_owner_trashed ON decks(owner_id, trashed_at DESC, id DESC);

-- A deck's slide order is the byte order of `rank` (hence COLLATE "C"); slides sharing a
-- `group_id` and adjacent in that order form a vertical group.
CREATE TABLE slides (
    id            TEXT PRIMARY KEY,
    deck_id       BIGINT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    rank          TEXT COLLATE "C" NOT NULL,
    group_id      BIGINT,
    html          TEXT NOT NULL,
    notes         TEXT,
    title         TEXT NOT NULL,
    text_preview  TEXT NOT NULL,
    html_bytes    BIGINT NOT NULL,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL,
    UNIQUE (deck_id, rank)
);
CREATE INDEX slides_order ON slides(deck_id, rank, id, group_id);
