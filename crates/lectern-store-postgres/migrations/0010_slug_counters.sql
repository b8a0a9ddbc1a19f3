-- The next number to try for a slug taken by several decks of one owner (`intro`, then
-- `intro-2`, `intro-3`, ...), so that a new deck with a common title finds a free slug in
-- one step however many decks share that title. Paired with SQLite 0010.

CREATE TABLE slug_counters (
    owner_id  BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    base      TEXT NOT NULL,
    next      BIGINT NOT NULL,
    PRIMARY KEY (owner_id, base)
);
