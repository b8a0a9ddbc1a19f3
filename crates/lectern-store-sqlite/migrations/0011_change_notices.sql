-- Paired with PostgreSQL 0011, whose triggers announce changed decks, keys and users to the
-- other servers' caches. A SQLite database is served by one process, whose cache learns of
-- other connections' commits from `PRAGMA data_version`, so there is nothing to create here.

SELECT 1;
