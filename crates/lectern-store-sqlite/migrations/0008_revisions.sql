-- Revisions (issue 16): every change of a deck's settings or slides is a numbered revision
-- with its author, and the deck as it was after any kept revision can be rebuilt.
-- Paired with the other engine's 0008.
--
-- Storage is by change, not by copy: a revision stores the settings only when it set them,
-- one `slide_history` row per slide it added, changed, moved or removed (the slide's place
-- and content after it; `rank` NULL: removed), and each distinct text once per deck in
-- `history_blobs` (keyed by its SHA-256, large texts deflated). The deck after revision R is
-- each slide's newest row at or before R that is not a removal, and the newest settings.

ALTER TABLE decks ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;

CREATE TABLE deck_revisions (
    deck_id            INTEGER NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    revision           INTEGER NOT NULL,
    created_at         INTEGER NOT NULL,
    operation          TEXT NOT NULL,
    slide_ids          TEXT NOT NULL,     -- JSON array of the slides it touched
    restored_revision  INTEGER,
    author_id          INTEGER REFERENCES users(id) ON DELETE SET NULL,
    via                TEXT NOT NULL,     -- api_key, oauth, mcp, web, admin
    label              TEXT,
    credential         TEXT,              -- 'key:<id>' or 'grant:<id>': undo's "same credential"
    settings           TEXT,              -- JSON of the deck's settings, when this revision set them
    PRIMARY KEY (deck_id, revision)
) WITHOUT ROWID;
CREATE INDEX deck_revisions_created ON deck_revisions(created_at);

CREATE TABLE history_blobs (
    id        INTEGER PRIMARY KEY,
    deck_id   INTEGER NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    hash      TEXT NOT NULL,
    encoding  INTEGER NOT NULL,           -- 0: UTF-8 text, 1: deflated UTF-8 text
    data      BLOB NOT NULL,
    UNIQUE (deck_id, hash)
);

CREATE TABLE slide_history (
    deck_id     INTEGER NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    slide_id    TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    rank        TEXT,                     -- NULL: the slide was removed in this revision
    group_id    INTEGER,
    html_blob   INTEGER,
    notes_blob  INTEGER,
    PRIMARY KEY (deck_id, slide_id, revision)
) WITHOUT ROWID;
