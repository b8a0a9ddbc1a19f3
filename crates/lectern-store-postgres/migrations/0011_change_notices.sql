-- Change notices for the servers' caches. Every `lectern serve` keeps the decks and API keys
-- it reads on every request in memory; a row changed by any process (another server, an
-- admin command) is announced on the channel `lectern_changes`, and each server forgets what
-- the notice names. A trigger announces it, so no writer can forget to; PostgreSQL delivers
-- the notice when the change commits (and not at all when it rolls back). Payloads:
-- `deck:<id>`, `key:<id>`, `user:<id>`. Paired with SQLite 0011.

CREATE FUNCTION lectern_announce_change() RETURNS trigger AS $$
DECLARE
    row_id BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        row_id := OLD.id;
    ELSE
        row_id := NEW.id;
    END IF;
    PERFORM pg_notify('lectern_changes', TG_ARGV[0] || ':' || row_id);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER decks_announce_change AFTER UPDATE OR DELETE ON decks
    FOR EACH ROW EXECUTE FUNCTION lectern_announce_change('deck');
CREATE TRIGGER api_keys_announce_change AFTER UPDATE OR DELETE ON api_keys
    FOR EACH ROW EXECUTE FUNCTION lectern_announce_change('key');
CREATE TRIGGER users_announce_change AFTER UPDATE OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION lectern_announce_change('user');
