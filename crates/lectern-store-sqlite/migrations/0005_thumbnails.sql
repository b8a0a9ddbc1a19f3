-- Deck thumbnails: the first slide drawn as a PNG after changes. The token names the current
-- image in its unguessable URL; the time says which version of the deck it shows.
-- Paired with PostgreSQL 0005.

ALTER TABLE decks ADD COLUMN thumbnail_token TEXT;
ALTER TABLE decks ADD COLUMN thumbnail_at INTEGER;
CREATE UNIQUE INDEX decks_thumbnail_token ON decks(thumbnail_token);
