-- A deck's presentation settings (canvas size, margin, transitions, direction, looping,
-- theme, language) in one JSON column, `look`, that the store writes and reads without
-- looking inside: a new setting is a field of `DeckLook` in the core, with its default for
-- the decks stored before it, and no migration. Paired with PostgreSQL 0015.

ALTER TABLE decks ADD COLUMN look TEXT NOT NULL DEFAULT '{}';
UPDATE decks SET look = json_object(
    'width', width,
    'height', height,
    'margin', margin,
    'transition', transition,
    'background_transition', background_transition,
    'rtl', json(CASE WHEN rtl THEN 'true' ELSE 'false' END),
    'loop', json(CASE WHEN loop_enabled THEN 'true' ELSE 'false' END),
    'theme_font', theme_font,
    'theme_color', theme_color,
    'language', language);
ALTER TABLE decks DROP COLUMN width;
ALTER TABLE decks DROP COLUMN height;
ALTER TABLE decks DROP COLUMN margin;
ALTER TABLE decks DROP COLUMN transition;
ALTER TABLE decks DROP COLUMN background_transition;
ALTER TABLE decks DROP COLUMN rtl;
ALTER TABLE decks DROP COLUMN loop_enabled;
ALTER TABLE decks DROP COLUMN theme_font;
ALTER TABLE decks DROP COLUMN theme_color;
ALTER TABLE decks DROP COLUMN language;
