-- Revisions (issue 16): every change of a deck's settings or slides is a numbered revision
-- with its author, and the deck as it was after any kept revision can be rebuilt.
-- Paired with the other engine's 0008.
--
-- Storage is by change, not by copy: a revision stores the settings only when it set them,
-- one `slide_history` row per slide it added, changed, moved or removed (the slide's place
-- and content after it; `rank` NULL: removed), and each distinct text once per deck in
-- `history_blobs` (keyed by its SHA-256, large texts deflated). The deck after revision R is
-- each slide's newest row at or before R that is not a removal, and the newest settings.

ALTER TABLE decks ADD COLUMN revision BIGINT NOT NULL DEFAULT 1;

CREATE TABLE deck_revisions (
    deck_id            BIGINT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    revision           BIGINT NOT NULL,
    created_at         BIGINT NOT NULL,
    operation          TEXT NOT NULL,
    slide_ids          TEXT NOT NULL,     -- JSON array of the slides it touched
    restored_revision  BIGINT,
    author_id          BIGINT REFERENCES users(id) ON DELETE SET NULL,
    via                TEXT NOT NULL,     -- api_key, oauth, mcp, web, admin
    label              TEXT,
    credential         TEXT,              -- 'key:<id>' or 'grant:<id>': undo's "same credential"
    settings           TEXT,              -- JSON of the deck's settings, when this revision set them
    PRIMARY KEY (deck_id, revision)
);
CREATE INDEX deck_revisions_created ON deck_revisions(created_at);

CREATE TABLE history_blobs (
    id        BIGSERIAL PRIMARY KEY,
    deck_id   BIGINT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    hash      TEXT NOT NULL,
    encoding  BIGINT NOT NULL,            -- 0: UTF-8 text, 1: deflated UTF-8 text
    data      BYTEA NOT NULL,
    UNIQUE (deck_id, hash)
);

CREATE TABLE slide_history (
    deck_id     BIGINT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    slide_id    TEXT NOT NULL,
    revision    BIGINT NOT NULL,
    rank        TEXT COLLATE "C",         -- NULL: the slide was removed in this revision
    group_id    BIGINT,
    html_blob   BIGINT,
    notes_blob  BIGINT,
    PRIMARY KEY (deck_id, slide_id, revision)
);
