-- The export queue (interface 2.11): a job per export, taken by workers inside `lectern serve`
-- with a lease, so a crash or a restart resumes it and no two workers run one job at once;
-- and the server-wide secret that signs download links. Paired with SQLite 0004.

CREATE TABLE exports (
    id            BIGSERIAL PRIMARY KEY,
    deck_id       BIGINT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
    format        TEXT NOT NULL,          -- 'pdf' or 'zip'
    options       TEXT NOT NULL,          -- JSON: margin, slide_number, slide_notes, separate_fragments
    status        TEXT NOT NULL,          -- 'pending', 'completed', 'failed'
    error         TEXT,
    attempts      BIGINT NOT NULL DEFAULT 0,
    lease_until   BIGINT,                -- a worker holds the job until then
    file_key      TEXT,
    created_at    BIGINT NOT NULL,
    completed_at  BIGINT
);
CREATE INDEX exports_queue ON exports(status, id);
CREATE INDEX exports_deck ON exports(deck_id);

CREATE TABLE server_secrets (
    name        TEXT PRIMARY KEY,
    value       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
