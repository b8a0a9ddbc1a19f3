//! The SQL that differs between SQLite and PostgreSQL, as small fragments the shared
//! queries splice in. Everything else (placeholders `$1`, `RETURNING`, `ON CONFLICT`,
//! `string_agg`, `CAST`) is written once and runs on both.

/// Which database the SQL runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// How a write transaction starts. SQLite: `BEGIN IMMEDIATE` takes the database's write
    /// lock at once, so a transaction never fails upgrading a read lock, and other processes
    /// wait on `busy_timeout`. PostgreSQL locks rows instead (see [`Dialect::row_lock`]).
    pub fn begin(self) -> &'static str {
        match self {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        }
    }

    /// Whether a transaction must lock the rows it depends on (PostgreSQL) rather than
    /// holding the whole database (SQLite).
    pub fn locks_rows(self) -> bool {
        self == Dialect::Postgres
    }

    /// `clause` (`FOR UPDATE`, `FOR UPDATE SKIP LOCKED`, ...) on PostgreSQL; nothing on
    /// SQLite, whose write transaction already excludes every other writer.
    pub fn row_lock(self, clause: &'static str) -> &'static str {
        if self.locks_rows() { clause } else { "" }
    }

    /// Case-insensitive `LIKE`: SQLite's `LIKE` ignores case already.
    pub fn ilike(self) -> &'static str {
        match self {
            Dialect::Sqlite => "LIKE",
            Dialect::Postgres => "ILIKE",
        }
    }

    /// Makes an `ORDER BY` on text byte order, as SQLite's default collation is, so that
    /// both databases list (and checksum) text keys alike.
    pub fn byte_order(self) -> &'static str {
        match self {
            Dialect::Sqlite => "",
            Dialect::Postgres => " COLLATE \"C\"",
        }
    }

    /// After rows were inserted with their ids, the statement that moves `table`'s id
    /// sequence past them. SQLite's `AUTOINCREMENT` follows explicit ids by itself.
    pub fn sequence_reset(self, table: &str) -> Option<String> {
        match self {
            Dialect::Sqlite => None,
            Dialect::Postgres => Some(format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                    COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)"
            )),
        }
    }
}
