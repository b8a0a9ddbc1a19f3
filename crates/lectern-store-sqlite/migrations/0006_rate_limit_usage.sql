-- Paired with PostgreSQL 0006, where several servers share rate-limit counts through a table.
-- A SQLite database is served by one process, whose limiter keeps its counts in memory, so
-- there is nothing to store here.

SELECT 1;
