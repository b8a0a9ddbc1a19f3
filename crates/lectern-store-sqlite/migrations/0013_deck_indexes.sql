-- The decks' indexes as new decks meet them. A new deck's entry went to the front of its
-- owner's range in `decks_owner_created` (newest first), where a full page is split in the
-- middle; ascending, it goes to the end (read backwards for the newest-first lists). Decks
-- in the trash and decks with a thumbnail are the only ones looked up by those columns, so
-- the other decks are left out of `decks_owner_trashed` and `decks_thumbnail_token`. A
-- commit of 25 new decks wrote 47 pages; these three indexes took 8.9 of them. And the
-- thumbnail loop's question (which decks changed and have been quiet since) read every deck
-- once a second: `decks_thumbnail_due` holds just the decks whose thumbnail is due. Paired
-- with PostgreSQL 0013.

DROP INDEX decks_owner_created;
CREATE INDEX decks_owner_created ON decks(owner_id, created_at, id);
DROP INDEX decks_owner_trashed;
CREATE INDEX decks_owner_trashed ON decks(owner_id, trashed_at, id) WHERE trashed_at IS NOT NULL;
DROP INDEX decks_thumbnail_token;
CREATE UNIQUE INDEX decks_thumbnail_token ON decks(thumbnail_token)
    WHERE thumbnail_token IS NOT NULL;
CREATE INDEX decks_thumbnail_due ON decks(updated_at)
    WHERE trashed_at IS NULL AND (thumbnail_at IS NULL OR thumbnail_at < updated_at);
