-- A deck's presentation settings (canvas size, margin, transitions, direction, looping,
-- theme, language) in one JSON column, `look`, that the store writes and reads without
-- looking inside: a new setting is a field of `DeckLook` in the core, with its default for
-- the decks stored before it, and no migration. Text, as the store reads every engine's
-- columns through one driver. Paired with SQLite 0015.

ALTER TABLE decks ADD COLUMN look TEXT NOT NULL DEFAULT '{}';
UPDATE decks SET look = json_build_object(
    'width', width,
    'height', height,
    'margin', margin,
    'transition', transition,
    'background_transition', background_transition,
    'rtl', rtl,
    'loop', loop_enabled,
    'theme_font', theme_font,
    'theme_color', theme_color,
    'language', language)::text;
ALTER TABLE decks
    DROP COLUMN width,
    DROP COLUMN height,
    DROP COLUMN margin,
    DROP COLUMN transition,
    DROP COLUMN background_transition,
    DROP COLUMN rtl,
    DROP COLUMN loop_enabled,
    DROP COLUMN theme_font,
    DROP COLUMN theme_color,
    DROP COLUMN language;
